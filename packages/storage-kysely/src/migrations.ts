/**
 * Schema migrations, run in name order by Kysely's Migrator. One small step each; types chosen
 * to mean the same on SQLite and PostgreSQL (`bigint` for milliseconds and seqs), so the two
 * schemas stay one. Names and steps are fixed once released: databases made by them must open.
 */
import { sql, type Kysely, type Migration } from 'kysely';

// Migrations see the database as it was when they were written, not as `Database` is today.
/* eslint-disable @typescript-eslint/no-explicit-any */
type AnyDb = Kysely<any>;

const dropTable =
  (name: string) =>
  async (db: AnyDb): Promise<void> => {
    await db.schema.dropTable(name).execute();
  };

export interface SchemaOptions {
  /**
   * Adds `audit.pos`, an identity column holding the insert order, for a database that has no
   * rowid to order entries of the same millisecond by (PostgreSQL).
   */
  auditPosition?: boolean;
}

/** The migrations of the one schema, keyed `0001-…`, as each adapter's Migrator runs them. */
export function schemaMigrations(options: SchemaOptions = {}): Record<string, Migration> {
  return {
    '0001-workspaces': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('workspaces')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('slug', 'text', (c) => c.notNull().unique())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('billing_status', 'text', (c) =>
            c
              .notNull()
              .defaultTo('ok')
              .check(sql`billing_status in ('ok', 'overdue')`),
          )
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .execute();
      },
      down: dropTable('workspaces'),
    },

    '0002-projects': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('projects')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
          .addColumn('slug', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('ab_testing', 'integer', (c) =>
            c
              .notNull()
              .defaultTo(0)
              .check(sql`ab_testing in (0, 1)`),
          )
          .addColumn('revision', 'bigint', (c) => c.notNull().defaultTo(0))
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('projects_workspace_slug_unique', ['workspace_id', 'slug'])
          .execute();
      },
      down: dropTable('projects'),
    },

    '0003-services': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('services')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('slug', 'text', (c) => c.notNull())
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addUniqueConstraint('services_project_slug_unique', ['project_id', 'slug'])
          .execute();
      },
      down: dropTable('services'),
    },

    '0004-api-keys': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('api_keys')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('service_id', 'text', (c) => c.references('services.id'))
          .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('secret', 'public')`))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('prefix', 'text', (c) => c.notNull())
          .addColumn('hash', 'text', (c) => c.notNull().unique())
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('last_used_at', 'bigint')
          .addColumn('revoked_at', 'bigint')
          .execute();
        await db.schema
          .createIndex('api_keys_project_idx')
          .on('api_keys')
          .column('project_id')
          .execute();
      },
      down: dropTable('api_keys'),
    },

    '0005-configs': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('configs')
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('value_json', 'text', (c) => c.notNull())
          .addColumn('is_public', 'integer', (c) => c.notNull().check(sql`is_public in (0, 1)`))
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('configs_pk', ['project_id', 'scope', 'key'])
          .execute();
      },
      down: dropTable('configs'),
    },

    '0006-flags': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('flags')
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('is_active', 'integer', (c) => c.notNull().check(sql`is_active in (0, 1)`))
          .addColumn('rules_json', 'text', (c) => c.notNull())
          .addColumn('rollout_hundredths', 'integer', (c) =>
            c.notNull().check(sql`rollout_hundredths between 0 and 10000`),
          )
          .addColumn('salt', 'text')
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addPrimaryKeyConstraint('flags_pk', ['project_id', 'scope', 'key'])
          .execute();
      },
      down: dropTable('flags'),
    },

    '0007-secret-versions': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('secret_versions')
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('scope', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('version', 'integer', (c) => c.notNull().check(sql`version >= 1`))
          .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('text', 'file')`))
          .addColumn('file_name', 'text')
          .addColumn('sealed', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('deleted_at', 'bigint')
          .addPrimaryKeyConstraint('secret_versions_pk', ['project_id', 'scope', 'key', 'version'])
          // A remaining version always has its sealed value; a deleted one never does.
          .addCheckConstraint(
            'secret_versions_sealed_check',
            sql`(deleted_at is null) = (sealed is not null)`,
          )
          .execute();
      },
      down: dropTable('secret_versions'),
    },

    '0008-changes': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('changes')
          .addColumn('seq', 'bigint', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('project_id', 'text')
          .addColumn('service_id', 'text')
          .addColumn('revision', 'bigint')
          .addColumn('kind', 'text', (c) => c.notNull())
          .addColumn('key', 'text', (c) => c.notNull())
          .addColumn('op', 'text', (c) => c.notNull().check(sql`op in ('upsert', 'delete')`))
          .addColumn('at', 'bigint', (c) => c.notNull())
          .execute();
      },
      down: dropTable('changes'),
    },

    '0009-counters': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('counters')
          .addColumn('name', 'text', (c) => c.primaryKey())
          .addColumn('value', 'bigint', (c) => c.notNull())
          .execute();
        await db.insertInto('counters').values({ name: 'change_seq', value: 0 }).execute();
      },
      down: dropTable('counters'),
    },

    '0010-audit': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('audit')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .$call((table) =>
            options.auditPosition
              ? table.addColumn('pos', 'bigint', (c) => c.notNull().generatedAlwaysAsIdentity())
              : table,
          )
          .addColumn('workspace_id', 'text', (c) => c.notNull())
          .addColumn('at', 'bigint', (c) => c.notNull())
          .addColumn('actor', 'text', (c) => c.notNull())
          .addColumn('action', 'text', (c) => c.notNull())
          .addColumn('target', 'text', (c) => c.notNull())
          .execute();
        await db.schema
          .createIndex('audit_workspace_at_idx')
          .on('audit')
          .columns(['workspace_id', 'at'])
          .execute();
      },
      down: dropTable('audit'),
    },

    '0011-identities': {
      async up(db: AnyDb) {
        await db.schema
          .createTable('identities')
          .addColumn('id', 'text', (c) => c.primaryKey())
          .addColumn('workspace_id', 'text', (c) => c.notNull().references('workspaces.id'))
          .addColumn('project_id', 'text', (c) => c.notNull().references('projects.id'))
          .addColumn('service_id', 'text', (c) => c.references('services.id'))
          .addColumn('name', 'text', (c) => c.notNull())
          .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('secret', 'public')`))
          .addColumn('ttl_s', 'integer', (c) => c.notNull().check(sql`ttl_s between 60 and 43200`))
          .addColumn('method', 'text', (c) =>
            c.notNull().check(sql`method in ('oidc', 'kubernetes', 'aws', 'gcp', 'azure')`),
          )
          .addColumn('settings_json', 'text', (c) => c.notNull())
          .addColumn('sealed_secret', 'text')
          .addColumn('created_at', 'bigint', (c) => c.notNull())
          .addColumn('updated_at', 'bigint', (c) => c.notNull())
          .addColumn('last_used_at', 'bigint')
          .addUniqueConstraint('identities_project_name_unique', ['project_id', 'name'])
          .execute();
      },
      down: dropTable('identities'),
    },

    // Keys minted by an identity; no foreign key: they are deleted with it, after its row.
    '0012-minted-keys': {
      async up(db: AnyDb) {
        await db.schema.alterTable('api_keys').addColumn('identity_id', 'text').execute();
        await db.schema.alterTable('api_keys').addColumn('expires_at', 'bigint').execute();
        await db.schema
          .createIndex('api_keys_identity_idx')
          .on('api_keys')
          .column('identity_id')
          .execute();
      },
      async down(db: AnyDb) {
        await db.schema.dropIndex('api_keys_identity_idx').execute();
        await db.schema.alterTable('api_keys').dropColumn('expires_at').execute();
        await db.schema.alterTable('api_keys').dropColumn('identity_id').execute();
      },
    },
  };
}
