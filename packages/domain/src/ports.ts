/**
 * Ports: what the domain needs from the outside world. Signatures use domain types only.
 */
import type { KeyKind } from './api-key-format.ts';
import type { IdentityReader, IdentityWriter } from './identities/identity-ports.ts';
import type {
  ApiKeyRecord,
  AuditEntry,
  BillingStatus,
  Change,
  ConfigEntry,
  FlagEntry,
  Project,
  Scope,
  SealedValue,
  SecretType,
  SecretVersion,
  Service,
  Workspace,
} from './model.ts';

/** Everything a project holds, as loaded to build its views. */
export interface ProjectState {
  project: Project;
  services: Service[];
  /** Items by scope: the key `''` is project level, otherwise a service id. */
  configs: Map<string, ConfigEntry[]>;
  flags: Map<string, FlagEntry[]>;
  /** The current (highest remaining) version of each secret. */
  secrets: Map<string, SecretVersion[]>;
}

/** Reads, usable on the store itself and inside a transaction. */
export interface StoreReader extends IdentityReader {
  findWorkspaceBySlug(slug: string): Promise<Workspace | undefined>;
  findWorkspaceById(id: string): Promise<Workspace | undefined>;
  listWorkspaces(): Promise<Workspace[]>;

  findProject(workspaceId: string, slug: string): Promise<Project | undefined>;
  findProjectById(id: string): Promise<Project | undefined>;
  listProjects(workspaceId?: string): Promise<Project[]>;

  findService(projectId: string, slug: string): Promise<Service | undefined>;
  listServices(projectId: string): Promise<Service[]>;

  findApiKeyByHash(hash: string): Promise<ApiKeyRecord | undefined>;
  findApiKeyById(id: string): Promise<ApiKeyRecord | undefined>;
  listApiKeys(projectId?: string): Promise<ApiKeyRecord[]>;

  listConfigs(scope: Scope): Promise<ConfigEntry[]>;
  listFlags(scope: Scope): Promise<FlagEntry[]>;
  findConfig(scope: Scope, key: string): Promise<ConfigEntry | undefined>;
  findFlag(scope: Scope, key: string): Promise<FlagEntry | undefined>;
  /** The current version of every secret of the scope. */
  listSecrets(scope: Scope): Promise<SecretVersion[]>;
  /** The current (highest remaining) version of one secret; undefined when it does not exist. */
  findSecret(scope: Scope, key: string): Promise<SecretVersion | undefined>;
  /** Remaining versions of one secret, oldest first (empty when the secret does not exist). */
  listSecretVersions(scope: Scope, key: string): Promise<SecretVersion[]>;

  loadProjectState(projectId: string): Promise<ProjectState | undefined>;

  /** Every remaining secret version of every project, with where it lives (root-key rotation). */
  listSealedVersions(): Promise<SealedVersionRef[]>;

  /** Change-log rows with `seq > afterSeq`, in order, at most `limit`. */
  changesAfter(afterSeq: number, limit: number): Promise<Change[]>;
  /** The seq of the newest change-log row (0 when empty). */
  lastChangeSeq(): Promise<number>;

  listAudit(workspaceId: string, limit: number): Promise<AuditEntry[]>;
}

/** One sealed secret version and where it lives. */
export interface SealedVersionRef {
  scope: Scope;
  key: string;
  version: number;
  type: SecretType;
  fileName: string | null;
  sealed: SealedValue;
}

export interface NewSecretVersion {
  version: number;
  type: SecretType;
  fileName: string | null;
  sealed: SealedValue;
}

/**
 * Writes run inside a transaction. Every value write appends its change to the change log and
 * bumps the project's revision in that same transaction, and returns the change.
 */
export interface StoreWriter extends StoreReader, IdentityWriter {
  /** Throws ConflictError when the slug is taken. */
  insertWorkspace(input: { slug: string; name: string }): Promise<Workspace>;
  updateWorkspace(id: string, patch: { billingStatus?: BillingStatus }): Promise<Workspace>;
  insertProject(input: { workspaceId: string; slug: string; name: string }): Promise<Project>;
  updateProject(id: string, patch: { abTesting?: boolean }): Promise<Project>;
  insertService(input: { projectId: string; slug: string; name: string }): Promise<Service>;

  insertApiKey(input: {
    workspaceId: string;
    projectId: string;
    serviceId: string | null;
    kind: KeyKind;
    name: string;
    prefix: string;
    hash: string;
    /** Set for keys minted by a workload identity, with their expiry. */
    identityId?: string;
    expiresAt?: number;
  }): Promise<ApiKeyRecord>;
  /** Marks the key revoked; false when it does not exist in that project or is revoked already. */
  revokeApiKey(projectId: string, id: string): Promise<boolean>;
  /** Records use of keys (throttled by the caller). */
  touchApiKeys(ids: string[], at: number): Promise<void>;

  putConfig(scope: Scope, entry: Omit<ConfigEntry, 'updatedAt'>): Promise<Change>;
  /** undefined when the config did not exist. */
  deleteConfig(scope: Scope, key: string): Promise<Change | undefined>;
  putFlag(scope: Scope, entry: Omit<FlagEntry, 'updatedAt'>): Promise<Change>;
  deleteFlag(scope: Scope, key: string): Promise<Change | undefined>;

  /** The highest version number the secret ever had, deleted versions included (0 if none). */
  maxSecretVersion(scope: Scope, key: string): Promise<number>;
  insertSecretVersion(scope: Scope, key: string, version: NewSecretVersion): Promise<Change>;
  /** Deletes every version (their sealed values are erased); undefined when none remained. */
  deleteSecret(scope: Scope, key: string): Promise<Change | undefined>;
  /** Deletes one version; undefined when it did not remain. */
  deleteSecretVersion(scope: Scope, key: string, version: number): Promise<Change | undefined>;

  appendAudit(entry: Omit<AuditEntry, 'id' | 'at'>): Promise<void>;

  /**
   * Replaces the sealed form of one remaining version with another sealing of the same value
   * (root-key rotation). Not a change: no revision bump, no change-log row. False when the
   * version is gone.
   */
  replaceSealed(ref: SealedVersionRef): Promise<boolean>;
}

export interface Store extends StoreReader {
  /** Runs `fn` in one transaction: all of its writes commit together or not at all. */
  transaction<T>(fn: (tx: StoreWriter) => Promise<T>): Promise<T>;
  close(): Promise<void>;
}

/**
 * Follows the change log: calls the listener with every change after a seq, in order, once.
 * The log is the source of truth; notifications only wake the follower up.
 */
export interface ChangeFeed {
  /** Starts following after `afterSeq`; resolves once the follower runs. */
  follow(afterSeq: number, listener: (changes: Change[]) => void | Promise<void>): Promise<void>;
  /** Reads pending changes now instead of waiting for the next poll or notification. */
  poke(): void;
  close(): Promise<void>;
}

/** Seals secret values at rest (envelope encryption) and opens them again. */
export interface SecretSealer {
  /** `context` is bound to the ciphertext: opening with another context fails. */
  seal(plaintext: string, context: string): SealedValue;
  open(sealed: SealedValue, context: string): string;
}

/** One-way hash of API keys (stored instead of the keys) and of other tokens. */
export interface KeyHasher {
  hash(key: string): string;
  /** Constant-time comparison of two strings. */
  equals(a: string, b: string): boolean;
}

export interface Clock {
  now(): number;
}

export const systemClock: Clock = { now: () => Date.now() };

/** Mints new API keys (random part from a cryptographic source). */
export interface KeyGenerator {
  generate(kind: KeyKind): string;
}

/** A strong, stable digest of a text (used for ETags). */
export type Digest = (text: string) => string;
