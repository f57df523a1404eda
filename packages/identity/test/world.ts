/**
 * A small world for the exchange's tests: a real SQLite store in a temp folder, a workspace
 * with a project and a service, the management slices, and a read model kept current by the
 * store's change feed (as an api instance keeps it).
 */
import { randomBytes } from 'node:crypto';
import { rmSync } from 'node:fs';
import { join } from 'node:path';
import {
  IdentityExchange,
  Management,
  ReadModel,
  type AppliedChanges,
  type Clock,
  type ExchangeDeps,
  type IdentityVerifier,
} from '@svc/domain';
import { AesGcmSealer, apiKeyGenerator, sha256Digest, sha256KeyHasher } from '@svc/crypto';
import { openSqliteStore, type SqliteStore } from '@svc/storage-sqlite';
import { tempDir } from '@svc/testkit';

/** A clock that follows the system's, plus an offset the test moves forward. */
export class ShiftedClock implements Clock {
  offset = 0;
  now(): number {
    return Date.now() + this.offset;
  }
}

export interface World {
  store: SqliteStore;
  clock: ShiftedClock;
  management: Management;
  identities: Management['identities'];
  model: ReadModel;
  /** Every batch the read model applied, in order. */
  applied: AppliedChanges[];
  exchange(verifier: IdentityVerifier, deps?: Partial<ExchangeDeps>): IdentityExchange;
  close(): Promise<void>;
}

export async function openWorld(options: { allowHttp?: boolean } = {}): Promise<World> {
  const dir = tempDir('svc-identity-');
  const clock = new ShiftedClock();
  const store = await openSqliteStore({ file: join(dir, 'svc.sqlite'), clock });
  const sealer = new AesGcmSealer(randomBytes(32));
  const management = new Management({
    store,
    hasher: sha256KeyHasher,
    keys: apiKeyGenerator,
    sealer,
    clock,
    identityPolicy: { allowHttp: options.allowHttp ?? true },
  });
  await management.workspaces.create({ slug: 'acme', name: 'Acme' });
  await management.workspaces.create({ slug: 'other', name: 'Other' });
  await management.projects.create('acme', { slug: 'shop', name: 'Shop' });
  await management.services.create('acme', 'shop', { slug: 'checkout', name: 'Checkout' });

  const model = new ReadModel({
    store,
    sealer,
    hasher: sha256KeyHasher,
    digest: sha256Digest,
    clock,
  });
  const feed = store.changeFeed();
  const applied: AppliedChanges[] = [];
  await model.load();
  await feed.follow(model.seq, async (changes) => {
    applied.push(await model.apply(changes));
  });

  return {
    store,
    clock,
    management,
    identities: management.identities,
    model,
    applied,
    exchange: (verifier, deps = {}) =>
      new IdentityExchange({
        store,
        verifier,
        sealer,
        hasher: sha256KeyHasher,
        keys: apiKeyGenerator,
        clock,
        limiter: { consume: async () => ({ allowed: true }) },
        // As the api does: answer once this instance's read model has the new key.
        model,
        afterMint: () => feed.poke(),
        ...deps,
      }),
    async close() {
      await feed.close();
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
