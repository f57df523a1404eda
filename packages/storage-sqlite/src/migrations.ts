/** The shared schema's migrations, as they run on SQLite (its rowid orders the audit log). */
import { schemaMigrations } from '@svc/storage-kysely';

export const migrations = schemaMigrations();
