/**
 * The exchange use case on a real SQLite store and read model, with a scripted verifier (the
 * verifiers themselves are tested against the stand-ins): minted keys work like static keys of
 * their kind and service, expire, are stored hashed, audited, rate limited, and revoked with
 * their identity.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  IdentityRejectedError,
  NotFoundError,
  RateLimitedError,
  UnauthorizedError,
  UpstreamUnavailableError,
  ValidationError,
  parseApiKey,
  type IdentityVerifier,
  type VerificationRequest,
  type VerifiedWorkload,
} from '@svc/domain';
import { sha256Hex } from '@svc/crypto';
import { openWorld, type World } from './world.ts';

/** Answers each verification with `outcome`, and keeps what it was asked. */
class ScriptedVerifier implements IdentityVerifier {
  calls: VerificationRequest[] = [];
  outcome: VerifiedWorkload | Error = { subject: 'system:serviceaccount:payments:checkout' };

  async verify(request: VerificationRequest): Promise<VerifiedWorkload> {
    this.calls.push(request);
    if (this.outcome instanceof Error) throw this.outcome;
    return this.outcome;
  }
}

const kubernetes = {
  method: 'kubernetes' as const,
  settings: {
    apiServer: 'https://10.0.0.1:443',
    namespaces: ['payments'],
    serviceAccounts: ['checkout'],
  },
};

let world: World;
let verifier: ScriptedVerifier;

beforeEach(async () => {
  world = await openWorld();
  verifier = new ScriptedVerifier();
});
afterEach(() => world.close());

async function createIdentity(patch: Record<string, unknown> = {}) {
  return world.identities.create('acme', 'shop', {
    name: 'payments on k8s',
    kind: 'secret',
    service: 'checkout',
    ttlSeconds: 60,
    binding: kubernetes,
    reviewerToken: 'reviewer-token-value',
    ...patch,
  });
}

const token = (identityId: string, slug = 'acme') => ({
  slug,
  identityId,
  credential: { type: 'token' as const, token: 'eyJ.platform.token' },
});

describe('IdentityExchange', () => {
  it('mints a checksummed key of the identity’s kind and service that the read model accepts at once', async () => {
    const identity = await createIdentity();
    const before = Date.now();
    const minted = await world.exchange(verifier).exchange(token(identity.id));

    expect(parseApiKey(minted.key)).toMatchObject({ kind: 'secret', keyType: 'sk' });
    expect(minted.kind).toBe('secret');
    expect(minted.expiresIn).toBe(60);
    expect(minted.expiresAt).toBeGreaterThanOrEqual(before + 60_000);
    expect(minted.expiresAt).toBeLessThanOrEqual(Date.now() + 60_000);

    const principal = world.model.authenticate('acme', minted.key);
    expect(principal.key).toMatchObject({
      identityId: identity.id,
      expiresAt: minted.expiresAt,
      serviceId: identity.serviceId,
      kind: 'secret',
    });
    expect(principal.viewId).toContain(identity.serviceId!);
    // Stored as its hash only, and never listed with the static keys' details.
    const stored = await world.store.findApiKeyById(principal.key.id);
    expect(stored?.hash).toBe(sha256Hex(minted.key));
    expect(JSON.stringify(stored)).not.toContain(minted.key);
  });

  it('hands the verifier the binding and the opened reviewer token, which is sealed at rest', async () => {
    const identity = await createIdentity();
    await world.exchange(verifier).exchange(token(identity.id));
    expect(verifier.calls).toHaveLength(1);
    expect(verifier.calls[0]).toMatchObject({
      binding: { method: 'kubernetes', settings: { namespaces: ['payments'] } },
      reviewerToken: 'reviewer-token-value',
      credential: { type: 'token', token: 'eyJ.platform.token' },
    });
    const stored = await world.store.findIdentity(identity.id);
    expect(stored?.sealedSecret).toBeTruthy();
    expect(stored?.sealedSecret).not.toContain('reviewer-token-value');
  });

  it('mints public keys for a public identity, which see no secret', async () => {
    await world.management.secrets.put({ workspace: 'acme', project: 'shop' }, 'db.password', {
      value: 'hunter2',
    });
    await world.management.configs.put({ workspace: 'acme', project: 'shop' }, 'ui.theme', {
      value: 'dark',
      isPublic: true,
    });
    const identity = await createIdentity({ kind: 'public', name: 'browser' });
    const minted = await world.exchange(verifier).exchange(token(identity.id));
    expect(minted.key.startsWith('svp_')).toBe(true);
    const principal = world.model.authenticate('acme', minted.key);
    expect(principal.keyType).toBe('pk');
    await expect.poll(() => world.model.view(principal.viewId)?.body).toContain('ui.theme');
    expect(world.model.view(principal.viewId)?.body).not.toContain('hunter2');
    expect(world.model.view(principal.viewId)?.body).not.toContain('secrets');
  });

  it('refuses a key from its expiry on', async () => {
    const identity = await createIdentity();
    const minted = await world.exchange(verifier).exchange(token(identity.id));
    world.clock.offset = minted.expiresAt - Date.now() - 5;
    const { key } = world.model.authenticate('acme', minted.key);
    expect(key.identityId).toBe(identity.id);
    expect(world.model.activeKey(key.id)?.id).toBe(key.id);
    world.clock.offset = minted.expiresAt - Date.now();
    expect(() => world.model.authenticate('acme', minted.key)).toThrow(
      new UnauthorizedError('the API key has expired'),
    );
    // What an OFREP event-stream token is checked against: the key, expired too.
    expect(world.model.activeKey(key.id)).toBeUndefined();
  });

  it('audits the exchange with the workload and the key prefix, never the key or token', async () => {
    const identity = await createIdentity();
    const minted = await world.exchange(verifier).exchange(token(identity.id));
    const [entry] = await world.management.audit.list('acme', 1);
    expect(entry).toMatchObject({
      actor: 'identity:payments on k8s',
      action: 'identity.exchange',
      target: `shop system:serviceaccount:payments:checkout → ${minted.key.slice(0, 10)}… (secret, 60 s)`,
    });
    expect(JSON.stringify(entry)).not.toContain(minted.key);
    expect(JSON.stringify(entry)).not.toContain('eyJ.platform.token');
    expect((await world.store.findIdentity(identity.id))?.lastUsedAt).not.toBeNull();
  });

  it('passes a failed check on as a 401 naming it, and audits the denial', async () => {
    const identity = await createIdentity();
    verifier.outcome = new IdentityRejectedError(
      'not_allowed',
      'namespace kube-system is not allowed',
    );
    const failure = world.exchange(verifier).exchange(token(identity.id));
    await expect(failure).rejects.toBeInstanceOf(UnauthorizedError);
    await expect(failure).rejects.toThrow(/^not_allowed: namespace kube-system is not allowed$/);
    const [entry] = await world.management.audit.list('acme', 1);
    expect(entry).toMatchObject({ action: 'identity.exchange_denied', target: 'shop not_allowed' });
    expect(await world.store.countLiveIdentityKeys(identity.projectId, Date.now())).toStrictEqual(
      new Map(),
    );
  });

  it('passes an unreachable upstream on as upstream_unavailable, minting nothing', async () => {
    const identity = await createIdentity();
    verifier.outcome = new UpstreamUnavailableError('TokenReview: connection refused');
    await expect(world.exchange(verifier).exchange(token(identity.id))).rejects.toBeInstanceOf(
      UpstreamUnavailableError,
    );
    expect((await world.identities.list('acme', 'shop'))[0]?.liveKeys).toBe(0);
  });

  it('refuses unknown identities and other workspaces’ identities before verifying', async () => {
    const identity = await createIdentity();
    const exchange = world.exchange(verifier);
    await expect(exchange.exchange(token('no-such-id'))).rejects.toThrow(/^identity: /);
    await expect(exchange.exchange(token(identity.id, 'other'))).rejects.toThrow(/^identity: /);
    await expect(exchange.exchange(token(identity.id, 'nope'))).rejects.toBeInstanceOf(
      NotFoundError,
    );
    expect(verifier.calls).toHaveLength(0);
  });

  it('wants the signed request for an aws identity and a token for the others', async () => {
    const k8s = await createIdentity();
    const aws = await createIdentity({
      name: 'lambda',
      reviewerToken: undefined,
      binding: { method: 'aws', settings: { accounts: ['123456789012'] } },
    });
    const exchange = world.exchange(verifier);
    const signed = {
      type: 'aws' as const,
      request: { method: 'POST', url: 'https://sts.amazonaws.com/', headers: {}, body: '' },
    };
    await expect(exchange.exchange({ ...token(k8s.id), credential: signed })).rejects.toThrow(
      new ValidationError('token', 'required by a kubernetes identity'),
    );
    await expect(exchange.exchange(token(aws.id))).rejects.toThrow(
      new ValidationError('aws', 'required by a aws identity'),
    );
    expect(verifier.calls).toHaveLength(0);
  });

  it('stops at the identity’s budget with the limiter’s Retry-After, before verifying', async () => {
    const identity = await createIdentity();
    const budgets: string[] = [];
    const exchange = world.exchange(verifier, {
      limiter: {
        consume: async (id) => {
          budgets.push(id);
          return budgets.length > 2 ? { allowed: false, retryAfterSeconds: 42 } : { allowed: true };
        },
      },
    });
    await exchange.exchange(token(identity.id));
    await exchange.exchange(token(identity.id));
    await expect(exchange.exchange(token(identity.id))).rejects.toThrow(new RateLimitedError(42));
    expect(budgets).toStrictEqual([identity.id, identity.id, identity.id]);
    expect(verifier.calls).toHaveLength(2);
  });

  it('deletes expired keys of the identity as it mints, and counts live ones', async () => {
    const identity = await createIdentity();
    const exchange = world.exchange(verifier);
    const first = await exchange.exchange(token(identity.id));
    await exchange.exchange(token(identity.id));
    expect((await world.identities.list('acme', 'shop'))[0]?.liveKeys).toBe(2);
    world.clock.offset = 61_000;
    expect((await world.identities.list('acme', 'shop'))[0]?.liveKeys).toBe(0);
    await exchange.exchange(token(identity.id));
    const firstId = world.applied.flatMap((a) => a.revokedKeyIds);
    expect(firstId).toStrictEqual([]);
    expect(await world.store.findApiKeyByHash(sha256Hex(first.key))).toBeUndefined();
    expect((await world.identities.list('acme', 'shop'))[0]?.liveKeys).toBe(1);
  });

  it('revokes every minted key when the identity is deleted, telling the streams', async () => {
    const identity = await createIdentity();
    const exchange = world.exchange(verifier);
    const a = await exchange.exchange(token(identity.id));
    const b = await exchange.exchange(token(identity.id));
    const ids = [a, b].map((m) => world.model.authenticate('acme', m.key).key.id);
    await world.identities.delete('acme', 'shop', identity.id);
    await expect
      .poll(() => world.applied.flatMap((x) => x.revokedKeyIds).sort())
      .toStrictEqual(ids.sort());
    for (const m of [a, b])
      expect(() => world.model.authenticate('acme', m.key)).toThrow(UnauthorizedError);
    await expect(exchange.exchange(token(identity.id))).rejects.toThrow(/^identity: /);
    const [entry] = await world.management.audit.list('acme', 1);
    expect(entry).toMatchObject({
      action: 'identity.delete',
      target: 'shop payments on k8s (2 minted keys revoked)',
    });
  });

  it('revokes minted keys when a patch changes what they see, and keeps them otherwise', async () => {
    const identity = await createIdentity();
    const exchange = world.exchange(verifier);
    const kept = await exchange.exchange(token(identity.id));
    await world.identities.patch('acme', 'shop', identity.id, { ttlSeconds: 120, name: 'renamed' });
    expect(world.model.authenticate('acme', kept.key).key.identityId).toBe(identity.id);
    const patched = await world.identities.patch('acme', 'shop', identity.id, { service: null });
    expect(patched).toMatchObject({ service: null, serviceId: null, ttlSeconds: 120, liveKeys: 0 });
    await expect.poll(() => world.applied.flatMap((x) => x.revokedKeyIds).length).toBe(1);
    expect(() => world.model.authenticate('acme', kept.key)).toThrow(UnauthorizedError);
    const next = await exchange.exchange(token(identity.id));
    expect(next.expiresIn).toBe(120);
    expect(world.model.authenticate('acme', next.key).key.serviceId).toBeNull();
  });
});
