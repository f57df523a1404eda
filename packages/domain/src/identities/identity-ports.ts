/**
 * Ports of workload identity federation: the verifier (one per method behind one port), and
 * what the store keeps of identities and the keys minted from them.
 */
import type { ApiKeyRecord } from '../model.ts';
import type {
  IdentityBinding,
  IdentityRecord,
  VerifiedWorkload,
  WorkloadCredential,
} from './identity.ts';

/** What the verifier is asked: does this credential prove a workload this binding trusts? */
export interface VerificationRequest {
  binding: IdentityBinding;
  /** The opened Kubernetes reviewer token; null when the caller's token reviews itself. */
  reviewerToken: string | null;
  credential: WorkloadCredential;
}

/**
 * Checks a workload's credential against an identity's binding, calling only the upstreams an
 * admin configured in it (JWKS, TokenReview, STS). Throws IdentityRejectedError (401, naming
 * the check) or UpstreamUnavailableError (502); resolves with who the workload is.
 */
export interface IdentityVerifier {
  verify(request: VerificationRequest): Promise<VerifiedWorkload>;
}

/** An identity as stored (the secret sealed already). */
export type NewIdentity = Omit<IdentityRecord, 'id' | 'createdAt' | 'updatedAt' | 'lastUsedAt'>;

/** Reads of identities, on the store and inside a transaction. */
export interface IdentityReader {
  findIdentity(id: string): Promise<IdentityRecord | undefined>;
  /** A project's identities, by name. */
  listIdentities(projectId: string): Promise<IdentityRecord[]>;
  /** Live (unrevoked, unexpired at `now`) minted keys of a project's identities, by identity id. */
  countLiveIdentityKeys(projectId: string, now: number): Promise<Map<string, number>>;
}

/** Writes of identities; the key writes append their changes like any key's. */
export interface IdentityWriter extends IdentityReader {
  /** Throws ConflictError when the project has an identity of that name. */
  insertIdentity(input: NewIdentity): Promise<IdentityRecord>;
  /** Replaces every field but the ids and times; throws ConflictError on a taken name. */
  updateIdentity(id: string, input: NewIdentity): Promise<IdentityRecord>;
  /** False when it did not exist. */
  deleteIdentity(id: string): Promise<boolean>;
  /**
   * Sets `last_used_at`; false when the identity is gone. The exchange's first write: it locks
   * the identity's row, so a concurrent delete either waits for the new key (and revokes it) or
   * makes this false.
   */
  touchIdentity(id: string, at: number): Promise<boolean>;
  /**
   * Deletes every key minted from the identity; each live one is a `key` change, so that every
   * api instance drops it and closes its streams. Returns how many were live.
   */
  revokeIdentityKeys(identityId: string, now: number): Promise<number>;
  /** Deletes the identity's keys that expired before `before` (no change: they are refused already). */
  deleteExpiredIdentityKeys(identityId: string, before: number): Promise<number>;
}

/** A minted key as the exchange stores it: an ApiKeyRecord with its identity and expiry. */
export type MintedKeyRecord = ApiKeyRecord & { identityId: string; expiresAt: number };
