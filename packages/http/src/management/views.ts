/** Domain records as the management API shows them (snake_case, ISO times). */
import type {
  AuditEntry,
  ConfigEntry,
  FlagEntry,
  ListedApiKey,
  Project,
  SecretListing,
  Service,
  Workspace,
} from '@svc/domain';

const iso = (ms: number | null) => (ms === null ? null : new Date(ms).toISOString());

export const workspaceJson = (w: Workspace) => ({
  id: w.id,
  slug: w.slug,
  name: w.name,
  billing_status: w.billingStatus,
  created_at: iso(w.createdAt),
});

export const projectJson = (p: Project) => ({
  id: p.id,
  slug: p.slug,
  name: p.name,
  ab_testing: p.abTesting,
  revision: p.revision,
  created_at: iso(p.createdAt),
});

export const serviceJson = (s: Service) => ({
  id: s.id,
  slug: s.slug,
  name: s.name,
  created_at: iso(s.createdAt),
});

export const keyJson = (k: ListedApiKey) => ({
  id: k.id,
  name: k.name,
  kind: k.kind,
  service: k.service,
  prefix: k.prefix,
  created_at: iso(k.createdAt),
  last_used_at: iso(k.lastUsedAt),
  revoked_at: iso(k.revokedAt),
});

export const configJson = (c: ConfigEntry) => ({
  key: c.key,
  value: JSON.parse(c.valueJson) as unknown,
  is_public: c.isPublic,
  updated_at: iso(c.updatedAt),
});

export const flagJson = (f: FlagEntry) => ({
  key: f.key,
  is_active: f.isActive,
  rules: f.rules,
  rollout_percentage: f.rolloutPercentage,
  salt: f.salt,
  updated_at: iso(f.updatedAt),
});

export const secretListingJson = (s: SecretListing) => ({
  key: s.key,
  version: s.version,
  type: s.type,
  ...(s.fileName === null ? {} : { file_name: s.fileName }),
  versions: s.versions,
  ...(s.value === undefined ? {} : { value: s.value }),
});

export const auditJson = (a: AuditEntry) => ({
  at: iso(a.at),
  actor: a.actor,
  action: a.action,
  target: a.target,
});
