import {
  DummyDriver,
  Kysely,
  PostgresAdapter,
  PostgresIntrospector,
  PostgresQueryCompiler,
} from 'kysely';
import { describe, expect, it } from 'vitest';
import { schemaMigrations, type SchemaOptions } from '../src/migrations.ts';

/** The statements the migrations send, compiled for PostgreSQL and never run. */
async function statements(options?: SchemaOptions): Promise<string[]> {
  const sent: string[] = [];
  const db = new Kysely<unknown>({
    dialect: {
      createAdapter: () => new PostgresAdapter(),
      createDriver: () => new DummyDriver(),
      createIntrospector: (kysely) => new PostgresIntrospector(kysely),
      createQueryCompiler: () => new PostgresQueryCompiler(),
    },
    log: (event) => void sent.push(event.query.sql),
  });
  for (const migration of Object.values(schemaMigrations(options))) await migration.up(db);
  await db.destroy();
  return sent;
}

describe('schemaMigrations', () => {
  it('keeps the released names, in order', () => {
    expect(Object.keys(schemaMigrations())).toStrictEqual([
      '0001-workspaces',
      '0002-projects',
      '0003-services',
      '0004-api-keys',
      '0005-configs',
      '0006-flags',
      '0007-secret-versions',
      '0008-changes',
      '0009-counters',
      '0010-audit',
      '0011-identities',
      '0012-minted-keys',
    ]);
  });

  it('adds audit.pos, right after the id, only when asked', async () => {
    const plain = await statements();
    const withPosition = await statements({ auditPosition: true });
    const changed = withPosition.filter((statement, i) => statement !== plain[i]);
    expect(withPosition).toHaveLength(plain.length);
    expect(changed).toStrictEqual([
      'create table "audit" ("id" text primary key, ' +
        '"pos" bigint generated always as identity not null, "workspace_id" text not null, ' +
        '"at" bigint not null, "actor" text not null, "action" text not null, "target" text not null)',
    ]);
  });
});
