/** Rows to domain values and back: the only place that knows the column conventions. */
import type {
  ApiKeyRecord,
  AuditEntry,
  Change,
  ConfigEntry,
  FlagEntry,
  Project,
  Scope,
  SecretVersion,
  Service,
  TargetingRule,
  Workspace,
} from '@svc/domain';
import type {
  ApiKeyRow,
  AuditRow,
  ChangeRow,
  ConfigRow,
  Flag01,
  FlagRow,
  ProjectRow,
  SecretVersionRow,
  ServiceRow,
  WorkspaceRow,
} from './database.ts';

/** The `scope` column: `''` for project level, otherwise the service id. */
export function scopeColumn(scope: Scope): string {
  return scope.serviceId ?? '';
}

export function toFlag01(value: boolean): Flag01 {
  return value ? 1 : 0;
}

export function fromFlag01(value: number): boolean {
  return value === 1;
}

/** 12.34 (%) is stored as 1234. */
export function toHundredths(percentage: number): number {
  return Math.round(percentage * 100);
}

export function fromHundredths(hundredths: number): number {
  return hundredths / 100;
}

export function toWorkspace(row: WorkspaceRow): Workspace {
  return {
    id: row.id,
    slug: row.slug,
    name: row.name,
    billingStatus: row.billing_status,
    createdAt: row.created_at,
  };
}

export function toProject(row: ProjectRow): Project {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    slug: row.slug,
    name: row.name,
    abTesting: fromFlag01(row.ab_testing),
    revision: row.revision,
    createdAt: row.created_at,
  };
}

export function toService(row: ServiceRow): Service {
  return {
    id: row.id,
    projectId: row.project_id,
    slug: row.slug,
    name: row.name,
    createdAt: row.created_at,
  };
}

export function toApiKey(row: ApiKeyRow): ApiKeyRecord {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    serviceId: row.service_id,
    kind: row.kind,
    name: row.name,
    prefix: row.prefix,
    hash: row.hash,
    createdAt: row.created_at,
    lastUsedAt: row.last_used_at,
    revokedAt: row.revoked_at,
    identityId: row.identity_id,
    expiresAt: row.expires_at,
  };
}

export function toConfig(row: ConfigRow): ConfigEntry {
  return {
    key: row.key,
    valueJson: row.value_json,
    isPublic: fromFlag01(row.is_public),
    updatedAt: row.updated_at,
  };
}

export function toFlag(row: FlagRow): FlagEntry {
  return {
    key: row.key,
    isActive: fromFlag01(row.is_active),
    rules: JSON.parse(row.rules_json) as TargetingRule[],
    rolloutPercentage: fromHundredths(row.rollout_hundredths),
    salt: row.salt,
    updatedAt: row.updated_at,
  };
}

/** Only for remaining versions: deleted ones have no sealed value. */
export function toSecretVersion(row: SecretVersionRow): SecretVersion {
  if (row.sealed === null) {
    throw new Error(`secret version ${row.key}@${row.version} has no sealed value`);
  }
  return {
    key: row.key,
    version: row.version,
    type: row.type,
    fileName: row.file_name,
    sealed: row.sealed,
    createdAt: row.created_at,
  };
}

export function toChange(row: ChangeRow): Change {
  return {
    seq: row.seq,
    workspaceId: row.workspace_id,
    projectId: row.project_id,
    serviceId: row.service_id,
    revision: row.revision,
    kind: row.kind,
    key: row.key,
    op: row.op,
    at: row.at,
  };
}

export function toAuditEntry(row: AuditRow): AuditEntry {
  return {
    id: row.id,
    workspaceId: row.workspace_id,
    at: row.at,
    actor: row.actor,
    action: row.action,
    target: row.target,
  };
}

/** Rows of one project by their `scope` column, each converted, in the rows' order. */
export function groupByScope<R extends { scope: string }, T>(
  rows: R[],
  convert: (row: R) => T,
): Map<string, T[]> {
  const byScope = new Map<string, T[]>();
  for (const row of rows) {
    const items = byScope.get(row.scope);
    if (items) items.push(convert(row));
    else byScope.set(row.scope, [convert(row)]);
  }
  return byScope;
}
