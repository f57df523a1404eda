/**
 * The shared schema's migrations, as they run on PostgreSQL (in one transaction, under Kysely's
 * advisory lock, so api instances starting together migrate once). The one addition is
 * `audit.pos`: the insert order, which SQLite gets from its rowid.
 */
import { schemaMigrations } from '@svc/storage-kysely';

export const migrations = schemaMigrations({ auditPosition: true });
