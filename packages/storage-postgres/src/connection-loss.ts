/**
 * Telling "the database cannot be reached" apart from every other failure, and a pool for Kysely
 * that reports it as the domain's StorageUnavailableError: a write refused while PostgreSQL
 * restarts is a 503 to retry, not a 500.
 */
import type pg from 'pg';
import type { PostgresPool, PostgresPoolClient } from 'kysely';
import { StorageUnavailableError } from '@svc/domain';

/** Socket errors of a server that is down, restarting or out of reach. */
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * SQLSTATEs of a session the server ended or would not start: class 08 (connection exception),
 * 57P01 admin shutdown, 57P02 crash shutdown, 57P03 cannot connect now (starting up), 53300 too
 * many connections.
 */
const SERVER_CODES = /^(08...|57P0[123]|53300)$/;

/** What node-postgres says when it loses (or cannot get) a connection, without a code. */
const CLIENT_MESSAGES =
  /^(Connection terminated|timeout exceeded when trying to connect|Client has encountered a connection error)/;

export function isConnectionLoss(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string' && (NETWORK_CODES.has(code) || SERVER_CODES.test(code))) {
    return true;
  }
  return CLIENT_MESSAGES.test(error.message);
}

/** `error` as StorageUnavailableError when it is a lost connection; as it is otherwise. */
export function asUnavailable(error: unknown): unknown {
  return isConnectionLoss(error) ? new StorageUnavailableError(1, { cause: error }) : error;
}

function rethrowUnavailable(error: unknown): never {
  throw asUnavailable(error);
}

/**
 * The pool as Kysely uses it, with connection losses (on connecting or in a query) turned into
 * StorageUnavailableError. One wrapper per pooled client, made on its first use.
 */
export function unavailableOnLoss(pool: pg.Pool): PostgresPool {
  const wrapped = new WeakMap<pg.PoolClient, PostgresPoolClient>();
  return {
    async connect() {
      const client = await pool.connect().catch(rethrowUnavailable);
      let wrapper = wrapped.get(client);
      if (!wrapper) {
        wrapper = {
          query: ((...args: Parameters<pg.PoolClient['query']>) => {
            const result = client.query(...args) as unknown;
            // A cursor (never used by this store) is handed back as it is.
            return result instanceof Promise ? result.catch(rethrowUnavailable) : result;
          }) as PostgresPoolClient['query'],
          release: () => client.release(),
        };
        wrapped.set(client, wrapper);
      }
      return wrapper;
    },
    end: () => pool.end(),
  };
}
