/**
 * The product's model. Times are integer milliseconds since the epoch; ids are opaque text.
 */
import type { KeyKind } from './api-key-format.ts';
import type { TargetingRule } from './ab/rules.ts';

export type BillingStatus = 'ok' | 'overdue';

export interface Workspace {
  id: string;
  slug: string;
  name: string;
  billingStatus: BillingStatus;
  createdAt: number;
}

export interface Project {
  id: string;
  workspaceId: string;
  slug: string;
  name: string;
  /** The AB Testing add-on. */
  abTesting: boolean;
  /** The project's change counter: bumped by every value change, never reused. */
  revision: number;
  createdAt: number;
}

export interface Service {
  id: string;
  projectId: string;
  slug: string;
  name: string;
  createdAt: number;
}

export interface ApiKeyRecord {
  id: string;
  workspaceId: string;
  projectId: string;
  /** The service the key is bound to, or null for project level. */
  serviceId: string | null;
  kind: KeyKind;
  name: string;
  /** First characters of the key, safe to show (`svs_8aspm4`). */
  prefix: string;
  /** SHA-256 of the key: the key itself is never stored. */
  hash: string;
  createdAt: number;
  lastUsedAt: number | null;
  revokedAt: number | null;
  /** The workload identity that minted the key; null for a static key. */
  identityId: string | null;
  /** When a minted key stops working; null for a static key (which never expires). */
  expiresAt: number | null;
}

/**
 * Where a value lives: project level (`serviceId` null) or one service's level, whose values
 * overlay the project's for keys bound to that service.
 */
export interface Scope {
  projectId: string;
  serviceId: string | null;
}

export type ValueKind = 'config' | 'flag' | 'secret';

export interface ConfigEntry {
  key: string;
  /** The value as canonical JSON text (what `JSON.stringify` of the parsed value gives). */
  valueJson: string;
  isPublic: boolean;
  updatedAt: number;
}

export interface FlagEntry {
  key: string;
  isActive: boolean;
  rules: TargetingRule[];
  /** 0..100 with at most two decimals; 100 when no rollout is set. */
  rolloutPercentage: number;
  /** Bucketing salt; null or empty means the flag key. */
  salt: string | null;
  updatedAt: number;
}

export type SecretType = 'text' | 'file';

/** A sealed secret value: opaque text that only the SecretSealer can open. */
export type SealedValue = string;

export interface SecretVersion {
  key: string;
  version: number;
  type: SecretType;
  /** Present for file secrets only. */
  fileName: string | null;
  sealed: SealedValue;
  createdAt: number;
}

export type ChangeOp = 'upsert' | 'delete';

/**
 * What a change touched. Value kinds bump the project's revision; the others (key created or
 * revoked, project or workspace settings, new service) only refresh what api instances hold.
 */
export type ChangeKind = ValueKind | 'key' | 'project' | 'service' | 'workspace';

/** One row of the change log: written in the same transaction as the change itself. */
export interface Change {
  /** Global, gapless order of the log across all projects. */
  seq: number;
  workspaceId: string;
  projectId: string | null;
  serviceId: string | null;
  /** The project's revision after this change (value kinds only). */
  revision: number | null;
  kind: ChangeKind;
  key: string;
  op: ChangeOp;
  at: number;
}

export interface AuditEntry {
  id: string;
  workspaceId: string;
  at: number;
  actor: string;
  action: string;
  target: string;
}
