/**
 * The exchange (`POST {base_url}/v1/auth/token`): a workload's platform token in, a
 * short-lived API key of the identity's kind and service out. Verify, then mint the key,
 * store its hash with the identity and expiry, and audit; the key then works like any other
 * until it expires.
 */
import type { KeyKind } from '../api-key-format.ts';
import { parseApiKey } from '../api-key-format.ts';
import { NotFoundError, RateLimitedError, ValidationError } from '../errors.ts';
import type { Clock, KeyGenerator, KeyHasher, SecretSealer, Store, StoreWriter } from '../ports.ts';
import type { WriteRateLimiter } from '../secret-writes.ts';
import type { ReadModel } from '../views/read-model.ts';
import { IdentityRejectedError } from './identity-errors.ts';
import type { IdentityVerifier } from './identity-ports.ts';
import {
  identitySecretContext,
  type IdentityRecord,
  type VerifiedWorkload,
  type WorkloadCredential,
} from './identity.ts';

export interface ExchangeDeps {
  store: Store;
  verifier: IdentityVerifier;
  sealer: SecretSealer;
  hasher: KeyHasher;
  keys: KeyGenerator;
  clock: Clock;
  /** Exchanges per identity (`IDENTITY_EXCHANGE_MAX` a minute). */
  limiter: WriteRateLimiter;
  /** This instance's read model: the exchange answers once it holds the new key. */
  model: Pick<ReadModel, 'waitUntilApplied'>;
  /** Called after each minted key is committed (e.g. to wake the change feed at once). */
  afterMint?: () => void;
  /**
   * How long the exchange waits for this instance to hold the new key (read-your-writes;
   * default 2000 ms). Past it the key is stored all the same and arrives soon: it answers.
   */
  applyTimeoutMs?: number;
}

const DEFAULT_APPLY_TIMEOUT_MS = 2000;

export interface ExchangeRequest {
  /** The workspace of the base URL. */
  slug: string;
  identityId: string;
  credential: WorkloadCredential;
}

export interface MintedKey {
  /** The plaintext key: given this once, stored only as its hash. */
  key: string;
  kind: KeyKind;
  expiresAt: number;
  /** Seconds from now to `expiresAt`. */
  expiresIn: number;
}

export class IdentityExchange {
  constructor(private readonly deps: ExchangeDeps) {}

  /**
   * Order: 404 workspace, 401 unknown identity, 429 over the identity's budget, 400 a
   * credential of the wrong type, then the checks (401 naming the one that failed, 502 when an
   * upstream is unreachable).
   */
  async exchange(request: ExchangeRequest): Promise<MintedKey> {
    const { store } = this.deps;
    const workspace = await store.findWorkspaceBySlug(request.slug);
    if (!workspace) throw new NotFoundError(`no workspace '${request.slug}'`);
    const identity = await store.findIdentity(request.identityId);
    if (!identity || identity.workspaceId !== workspace.id) {
      throw new IdentityRejectedError('identity', 'no such identity in this workspace');
    }
    const budget = await this.deps.limiter.consume(identity.id);
    if (!budget.allowed) throw new RateLimitedError(budget.retryAfterSeconds);
    assertCredentialType(identity, request.credential);

    let workload: VerifiedWorkload;
    try {
      workload = await this.deps.verifier.verify({
        binding: identity.binding,
        reviewerToken: this.openSecret(identity),
        credential: request.credential,
      });
    } catch (error) {
      if (error instanceof IdentityRejectedError) await this.auditDenied(identity, error);
      throw error;
    }
    const minted = await store.transaction((tx) => this.mint(tx, identity, workload));
    this.deps.afterMint?.();
    await this.deps.model.waitUntilApplied(
      minted.seq,
      this.deps.applyTimeoutMs ?? DEFAULT_APPLY_TIMEOUT_MS,
    );
    return minted.key;
  }

  private async mint(
    tx: StoreWriter,
    verified: IdentityRecord,
    workload: VerifiedWorkload,
  ): Promise<{ seq: number; key: MintedKey }> {
    const now = this.deps.clock.now();
    // First write: it locks the identity against a concurrent delete or change.
    const current = (await tx.touchIdentity(verified.id, now))
      ? await tx.findIdentity(verified.id)
      : undefined;
    if (!current) throw new IdentityRejectedError('identity', 'the identity was deleted');
    if (current.updatedAt !== verified.updatedAt) {
      throw new IdentityRejectedError(
        'identity',
        'the identity changed during the exchange; retry',
      );
    }
    await tx.deleteExpiredIdentityKeys(current.id, now);
    const key = this.deps.keys.generate(current.kind);
    const parsed = parseApiKey(key);
    if (!parsed) throw new Error('key generator produced a malformed key');
    const expiresAt = now + current.ttlSeconds * 1000;
    await tx.insertApiKey({
      workspaceId: current.workspaceId,
      projectId: current.projectId,
      serviceId: current.serviceId,
      kind: current.kind,
      name: `identity ${current.name}`,
      prefix: parsed.prefix,
      hash: this.deps.hasher.hash(key),
      identityId: current.id,
      expiresAt,
    });
    await tx.appendAudit({
      workspaceId: current.workspaceId,
      actor: `identity:${current.name}`,
      action: 'identity.exchange',
      target: `${await projectSlug(tx, current)} ${workload.subject} → ${parsed.prefix}… (${current.kind}, ${current.ttlSeconds} s)`,
    });
    return {
      // The key's change is this transaction's last.
      seq: await tx.lastChangeSeq(),
      key: { key, kind: current.kind, expiresAt, expiresIn: current.ttlSeconds },
    };
  }

  private openSecret(identity: IdentityRecord): string | null {
    if (identity.sealedSecret === null) return null;
    return this.deps.sealer.open(identity.sealedSecret, identitySecretContext(identity.id));
  }

  private async auditDenied(identity: IdentityRecord, error: IdentityRejectedError): Promise<void> {
    await this.deps.store.transaction(async (tx) =>
      tx.appendAudit({
        workspaceId: identity.workspaceId,
        actor: `identity:${identity.name}`,
        action: 'identity.exchange_denied',
        target: `${await projectSlug(tx, identity)} ${error.check}`,
      }),
    );
  }
}

/** An `aws` identity takes the signed request; every other method a token. */
function assertCredentialType(identity: IdentityRecord, credential: WorkloadCredential): void {
  const wanted = identity.binding.method === 'aws' ? 'aws' : 'token';
  if (credential.type !== wanted) {
    throw new ValidationError(wanted, `required by a ${identity.binding.method} identity`);
  }
}

async function projectSlug(tx: StoreWriter, identity: IdentityRecord): Promise<string> {
  return (await tx.findProjectById(identity.projectId))?.slug ?? identity.projectId;
}
