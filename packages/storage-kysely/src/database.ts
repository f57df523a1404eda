/**
 * The schema as Kysely sees it, one for SQLite and PostgreSQL: text ids, bigint milliseconds,
 * 0/1 integers for booleans, JSON as text. Each adapter reads bigint columns as numbers (SQLite
 * does; the Postgres pool parses int8 with `Number()`). PostgreSQL's one extra column,
 * `audit.pos`, is the Postgres adapter's own: the shared queries never name it.
 */
import type { Insertable, Selectable, Updateable } from 'kysely';
import type {
  BillingStatus,
  ChangeKind,
  ChangeOp,
  IdentityMethod,
  KeyKind,
  SecretType,
} from '@svc/domain';

/** 0 or 1: booleans are integers on every database. */
export type Flag01 = 0 | 1;

export interface WorkspacesTable {
  id: string;
  slug: string;
  name: string;
  billing_status: BillingStatus;
  created_at: number;
}
export type WorkspaceRow = Selectable<WorkspacesTable>;
export type NewWorkspaceRow = Insertable<WorkspacesTable>;
export type WorkspaceUpdate = Updateable<WorkspacesTable>;

export interface ProjectsTable {
  id: string;
  workspace_id: string;
  slug: string;
  name: string;
  ab_testing: Flag01;
  revision: number;
  created_at: number;
}
export type ProjectRow = Selectable<ProjectsTable>;
export type NewProjectRow = Insertable<ProjectsTable>;
export type ProjectUpdate = Updateable<ProjectsTable>;

export interface ServicesTable {
  id: string;
  project_id: string;
  slug: string;
  name: string;
  created_at: number;
}
export type ServiceRow = Selectable<ServicesTable>;
export type NewServiceRow = Insertable<ServicesTable>;
export type ServiceUpdate = Updateable<ServicesTable>;

export interface ApiKeysTable {
  id: string;
  workspace_id: string;
  project_id: string;
  service_id: string | null;
  kind: KeyKind;
  name: string;
  prefix: string;
  hash: string;
  created_at: number;
  last_used_at: number | null;
  revoked_at: number | null;
  /** Keys minted by a workload identity: the identity, and when the key stops working. */
  identity_id: string | null;
  expires_at: number | null;
}
export type ApiKeyRow = Selectable<ApiKeysTable>;
export type NewApiKeyRow = Insertable<ApiKeysTable>;
export type ApiKeyUpdate = Updateable<ApiKeysTable>;

/** `scope` is `''` for project level, otherwise the service id. */
export interface ConfigsTable {
  project_id: string;
  scope: string;
  key: string;
  value_json: string;
  is_public: Flag01;
  updated_at: number;
}
export type ConfigRow = Selectable<ConfigsTable>;
export type NewConfigRow = Insertable<ConfigsTable>;
export type ConfigUpdate = Updateable<ConfigsTable>;

export interface FlagsTable {
  project_id: string;
  scope: string;
  key: string;
  is_active: Flag01;
  rules_json: string;
  /** The rollout percentage times 100 (0..10000): 12.34 % is 1234. */
  rollout_hundredths: number;
  salt: string | null;
  updated_at: number;
}
export type FlagRow = Selectable<FlagsTable>;
export type NewFlagRow = Insertable<FlagsTable>;
export type FlagUpdate = Updateable<FlagsTable>;

/**
 * Deleted versions keep their row (so version numbers are never reused) with `deleted_at` set
 * and `sealed` erased.
 */
export interface SecretVersionsTable {
  project_id: string;
  scope: string;
  key: string;
  version: number;
  type: SecretType;
  file_name: string | null;
  sealed: string | null;
  created_at: number;
  deleted_at: number | null;
}
export type SecretVersionRow = Selectable<SecretVersionsTable>;
export type NewSecretVersionRow = Insertable<SecretVersionsTable>;
export type SecretVersionUpdate = Updateable<SecretVersionsTable>;

/** The change log; `seq` comes from the `change_seq` counter, so commit order is seq order. */
export interface ChangesTable {
  seq: number;
  workspace_id: string;
  project_id: string | null;
  service_id: string | null;
  revision: number | null;
  kind: ChangeKind;
  key: string;
  op: ChangeOp;
  at: number;
}
export type ChangeRow = Selectable<ChangesTable>;
export type NewChangeRow = Insertable<ChangesTable>;
export type ChangeUpdate = Updateable<ChangesTable>;

export interface CountersTable {
  name: string;
  value: number;
}
export type CounterRow = Selectable<CountersTable>;
export type NewCounterRow = Insertable<CountersTable>;
export type CounterUpdate = Updateable<CountersTable>;

export interface AuditTable {
  id: string;
  workspace_id: string;
  at: number;
  actor: string;
  action: string;
  target: string;
}
export type AuditRow = Selectable<AuditTable>;
export type NewAuditRow = Insertable<AuditTable>;
export type AuditUpdate = Updateable<AuditTable>;

/** Workload identities; `settings_json` holds the method's settings, `sealed_secret` the reviewer token. */
export interface IdentitiesTable {
  id: string;
  workspace_id: string;
  project_id: string;
  service_id: string | null;
  name: string;
  kind: KeyKind;
  ttl_s: number;
  method: IdentityMethod;
  settings_json: string;
  sealed_secret: string | null;
  created_at: number;
  updated_at: number;
  last_used_at: number | null;
}
export type IdentityRow = Selectable<IdentitiesTable>;
export type NewIdentityRow = Insertable<IdentitiesTable>;
export type IdentityUpdate = Updateable<IdentitiesTable>;

export interface Database {
  workspaces: WorkspacesTable;
  projects: ProjectsTable;
  services: ServicesTable;
  api_keys: ApiKeysTable;
  configs: ConfigsTable;
  flags: FlagsTable;
  secret_versions: SecretVersionsTable;
  changes: ChangesTable;
  counters: CountersTable;
  audit: AuditTable;
  identities: IdentitiesTable;
}

/** The counter that allocates change-log seqs. */
export const CHANGE_SEQ_COUNTER = 'change_seq';
