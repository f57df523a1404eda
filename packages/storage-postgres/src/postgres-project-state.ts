/**
 * A whole project in one statement: one round trip, and one snapshot (so its revision matches
 * its values) without a transaction. Rows come back as JSON objects with the columns' names;
 * bigint columns as JSON numbers. Text is ordered by code point, as SQLite orders it.
 */
import { sql, type Kysely } from 'kysely';
import type { ProjectState } from '@svc/domain';
import {
  groupByScope,
  toConfig,
  toFlag,
  toProject,
  toSecretVersion,
  toService,
  type ConfigRow,
  type Database,
  type FlagRow,
  type ProjectRow,
  type SecretVersionRow,
  type ServiceRow,
} from '@svc/storage-kysely';

/** What the one statement returns. */
interface ProjectStateRow {
  project: ProjectRow | null;
  services: ServiceRow[];
  configs: ConfigRow[];
  flags: FlagRow[];
  secrets: SecretVersionRow[];
}

export async function loadProjectStateInOneStatement(
  db: Kysely<Database>,
  projectId: string,
): Promise<ProjectState | undefined> {
  const { rows } = await sql<ProjectStateRow>`
    select
      (select row_to_json(p) from projects p where p.id = ${projectId}) as project,
      (select coalesce(json_agg(s order by s.slug collate "C"), '[]')
         from services s where s.project_id = ${projectId}) as services,
      (select coalesce(json_agg(c order by c.scope collate "C", c.key collate "C"), '[]')
         from configs c where c.project_id = ${projectId}) as configs,
      (select coalesce(json_agg(f order by f.scope collate "C", f.key collate "C"), '[]')
         from flags f where f.project_id = ${projectId}) as flags,
      (select coalesce(json_agg(v order by v.scope collate "C", v.key collate "C"), '[]')
         from secret_versions v
        where v.project_id = ${projectId} and v.deleted_at is null
          and not exists (
            select 1 from secret_versions w
             where w.project_id = v.project_id and w.scope = v.scope and w.key = v.key
               and w.version > v.version and w.deleted_at is null)) as secrets
  `.execute(db);
  const row = rows[0];
  if (!row?.project) return undefined;
  return {
    project: toProject(row.project),
    services: row.services.map(toService),
    configs: groupByScope(row.configs, toConfig),
    flags: groupByScope(row.flags, toFlag),
    secrets: groupByScope(row.secrets, toSecretVersion),
  };
}
