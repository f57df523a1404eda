import pg from 'pg';
import { describe } from 'vitest';
import { describeStoreContract } from '@svc/storage-contract';
import { openPostgresStore } from '../src/index.ts';
import { fileDatabase, server } from './test-database.ts';

const database = fileDatabase();
const SCHEMA = 'contract';

// Every statement is a network round trip: the package's test script allows 30 s per test (the
// backlog case writes 1,100 rows in one transaction, several seconds on a loaded CI machine).
// The first test migrates a new schema; each test after it gets that schema emptied again
// (migrating a schema per test would cost more than most of the tests themselves).
describe.skipIf(!server)('PostgreSQL', () => {
  describeStoreContract('postgres', async ({ clock }) => {
    const options = {
      connectionString: database().url,
      schema: SCHEMA,
      clock,
      maxConnections: 4,
    };
    const store = await openPostgresStore(options);
    const raw = new pg.Client({
      connectionString: options.connectionString,
      options: `-c search_path=${SCHEMA}`,
    });
    await raw.connect();
    return {
      store,
      feed: (feedOptions) =>
        store.changeFeed(
          feedOptions?.passive ? { listen: false, catchUpIntervalMs: Infinity } : {},
        ),
      openAnother: () => openPostgresStore(options),
      rawRows: async (sql) => (await raw.query<Record<string, unknown>>(sql)).rows,
      cleanup: async () => {
        await store.close();
        // Every table but the migrator's; the counter row goes back to 0.
        const { rows } = await raw.query<{ name: string }>(
          `select tablename as name from pg_tables
            where schemaname = '${SCHEMA}' and tablename not like 'kysely%' and tablename <> 'counters'`,
        );
        await raw.query(`truncate ${rows.map((r) => r.name).join(', ')} restart identity`);
        await raw.query(`update counters set value = 0`);
        await raw.end();
      },
    };
  });
});
