/**
 * How an api instance applies a batch of the change log to what it holds, on a real SQLite
 * store with real sealing: a batch counts as applied only when all of it is, an item that cannot
 * be opened is skipped (and reported), never the rest of the batch.
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import {
  ReadModel,
  UnauthorizedError,
  parseApiKey,
  setSecret,
  type Scope,
  type StoreReader,
} from '@svc/domain';
import {
  AesGcmSealer,
  SealError,
  apiKeyGenerator,
  sha256Digest,
  sha256KeyHasher,
} from '@svc/crypto';
import { openSqliteStore, type SqliteStore } from '@svc/storage-sqlite';
import { tempDir } from '@svc/testkit';

const sealer = new AesGcmSealer(randomBytes(32));
/** Another instance's root key: what it seals, this instance cannot open. */
const foreignSealer = new AesGcmSealer(randomBytes(32));

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const cleanup of cleanups.splice(0).reverse()) await cleanup();
});

async function setUp(options: { store?: (store: SqliteStore) => StoreReader } = {}) {
  const dir = tempDir('svc-read-model-');
  const store = await openSqliteStore({ file: join(dir, 'svc.sqlite') });
  cleanups.push(async () => {
    await store.close();
    rmSync(dir, { recursive: true, force: true });
  });
  const { scope, slug, ...keys } = await store.transaction(async (tx) => {
    const ws = await tx.insertWorkspace({ slug: 'acme', name: 'Acme' });
    const project = await tx.insertProject({ workspaceId: ws.id, slug: 'web', name: 'Web' });
    const scope: Scope = { projectId: project.id, serviceId: null };
    await tx.putConfig(scope, { key: 'ui.theme', valueJson: '"light"', isPublic: false });
    await setSecret(tx, sealer, scope, { key: 'db.password', value: 'one', type: 'text' });
    const key = async () => {
      const raw = apiKeyGenerator.generate('secret');
      const record = await tx.insertApiKey({
        workspaceId: ws.id,
        projectId: project.id,
        serviceId: null,
        kind: 'secret',
        name: 'k',
        prefix: parseApiKey(raw)!.prefix,
        hash: sha256KeyHasher.hash(raw),
      });
      return { raw, id: record.id };
    };
    return { scope, slug: ws.slug, kept: await key(), revoked: await key() };
  });
  const unopenable: string[] = [];
  const model = new ReadModel({
    store: options.store?.(store) ?? store,
    sealer,
    hasher: sha256KeyHasher,
    digest: sha256Digest,
    onUnopenable: (secret, error) =>
      unopenable.push(`${secret.key}@${secret.version}: ${error instanceof SealError}`),
  });
  await model.load();
  const snapshot = () => {
    const principal = model.authenticate(slug, keys.kept.raw);
    return JSON.parse(model.view(principal.viewId)!.body) as {
      revision: number;
      configs: Record<string, unknown>;
      secrets: Record<string, { value: string; version: number }>;
    };
  };
  return { store, model, scope, slug, keys, unopenable, snapshot };
}

describe('ReadModel.apply', () => {
  it('applies the rest of a batch around a secret it cannot open, and reports that secret', async () => {
    const { store, model, scope, slug, keys, unopenable, snapshot } = await setUp();
    const before = model.seq;
    await store.transaction(async (tx) => {
      await setSecret(tx, foreignSealer, scope, { key: 'db.password', value: 'two', type: 'text' });
      await tx.revokeApiKey(scope.projectId, keys.revoked.id);
      await tx.putConfig(scope, { key: 'ui.theme', valueJson: '"dark"', isPublic: false });
    });
    const batch = await store.changesAfter(before, 100);
    expect(batch.map((c) => c.kind)).toStrictEqual(['secret', 'key', 'config']);

    const applied = await model.apply(batch);

    expect(applied.revokedKeyIds).toStrictEqual([keys.revoked.id]);
    expect(() => model.authenticate(slug, keys.revoked.raw)).toThrow(UnauthorizedError);
    const body = snapshot();
    expect(body.configs['ui.theme']).toBe('dark');
    // The secret keeps the value this instance could open; the log says which one it skipped.
    expect(body.secrets['db.password']).toMatchObject({ value: 'one', version: 1 });
    expect(unopenable).toStrictEqual(['db.password@2: true']);
    expect(model.seq).toBe(batch.at(-1)!.seq);
  });

  it('counts a batch as applied only when all of it is: a failed read leaves it to be offered again', async () => {
    let failReads = 0;
    const { store, model, scope, snapshot } = await setUp({
      // The real store, whose config reads fail while `failReads` lasts (a database going away).
      store: (real) =>
        new Proxy(real, {
          get(target, name, receiver) {
            const value: unknown = Reflect.get(target, name, receiver);
            if (name !== 'findConfig' || typeof value !== 'function') {
              return typeof value === 'function' ? value.bind(target) : value;
            }
            return (...args: unknown[]) => {
              if (failReads > 0) {
                failReads--;
                return Promise.reject(new Error('connection terminated'));
              }
              return (value as (...a: unknown[]) => unknown).apply(target, args);
            };
          },
        }),
    });
    const before = model.seq;
    const revisionBefore = snapshot().revision;
    await store.transaction(async (tx) => {
      await setSecret(tx, sealer, scope, { key: 'db.password', value: 'two', type: 'text' });
      await tx.putConfig(scope, { key: 'ui.theme', valueJson: '"dark"', isPublic: false });
    });
    const batch = await store.changesAfter(before, 100);

    failReads = 1;
    await expect(model.apply(batch)).rejects.toThrow('connection terminated');
    // Nothing of the batch is in: not the secret read before the failure, not the position.
    expect(model.seq).toBe(before);
    expect(snapshot()).toMatchObject({
      revision: revisionBefore,
      configs: { 'ui.theme': 'light' },
      secrets: { 'db.password': { value: 'one' } },
    });

    // The feed offers the same batch again: all of it lands.
    await model.apply(batch);
    expect(model.seq).toBe(batch.at(-1)!.seq);
    expect(snapshot()).toMatchObject({
      configs: { 'ui.theme': 'dark' },
      secrets: { 'db.password': { value: 'two', version: 2 } },
    });
  });

  it('lets a writer wait until its change is applied, within a bound', async () => {
    const { store, model, scope } = await setUp();
    expect(await model.waitUntilApplied(model.seq, 1)).toBe(true);
    const change = await store.transaction((tx) =>
      tx.putConfig(scope, { key: 'ui.theme', valueJson: '"dark"', isPublic: false }),
    );
    const waiting = model.waitUntilApplied(change.seq, 5000);
    const timingOut = model.waitUntilApplied(change.seq + 1, 50);
    await model.apply(await store.changesAfter(model.seq, 100));
    expect(await waiting).toBe(true);
    expect(await timingOut).toBe(false);
  });

  it('builds a project new to it without the secrets it cannot open', async () => {
    const { store, model, unopenable } = await setUp();
    const before = model.seq;
    await store.transaction(async (tx) => {
      const ws = (await tx.findWorkspaceBySlug('acme'))!;
      const project = await tx.insertProject({ workspaceId: ws.id, slug: 'new', name: 'New' });
      const scope = { projectId: project.id, serviceId: null };
      await setSecret(tx, foreignSealer, scope, { key: 'foreign', value: 'x', type: 'text' });
      await setSecret(tx, sealer, scope, { key: 'own', value: 'y', type: 'text' });
    });
    await model.apply(await store.changesAfter(before, 100));
    const project = (await store.findProject(
      (await store.findWorkspaceBySlug('acme'))!.id,
      'new',
    ))!;
    const body = JSON.parse(model.view(`${project.id}||sk`)!.body) as {
      secrets: Record<string, unknown>;
    };
    expect(Object.keys(body.secrets)).toStrictEqual(['own']);
    expect(unopenable).toStrictEqual(['foreign@1: true']);
  });
});
