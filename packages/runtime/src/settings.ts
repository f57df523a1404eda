/**
 * Settings of both apps, from environment variables (the contract's "Running" table). Each is
 * validated at start: a bad value stops the process with a message naming the variable.
 */
import { resolve } from 'node:path';
import { z } from 'zod';

const portNumber = z.coerce.number().int().min(0).max(65535);
const port = (fallback: number) => portNumber.default(fallback);
const positive = (fallback: number) => z.coerce.number().int().positive().default(fallback);

const schema = z.object({
  PORT: port(8080),
  CONSOLE_PORT: port(8081),
  HOST: z.string().min(1).default('0.0.0.0'),
  DATA_DIR: z.string().min(1).default('./data'),
  DATABASE_URL: z
    .string()
    .regex(/^(postgres(ql)?:\/\/|sqlite:|file:)/, 'must be postgres://… (or sqlite:PATH)')
    .optional(),
  BASE_DOMAIN: z
    .string()
    .regex(/^[a-z0-9.-]+$/i, 'must be a domain name such as localhost or example.com')
    .default('localhost'),
  CONSOLE_ADMIN_TOKEN: z.string().min(16, 'must be at least 16 characters').optional(),
  SERVICE_ROOT_KEY: z.string().optional(),
  /** Comma-separated previous root keys, still accepted for opening while a rotation runs. */
  SERVICE_ROOT_KEY_PREVIOUS: z.string().optional(),
  LOG_LEVEL: z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent']).default('info'),
  WRITE_RATE_LIMIT_MAX: positive(30),
  WRITE_RATE_LIMIT_WINDOW_S: positive(10),
  SYNC_QUARANTINE_MAX: positive(120),
  SYNC_QUARANTINE_WINDOW_S: positive(60),
  SYNC_QUARANTINE_S: positive(300),
  STREAM_MAX_AGE_S: positive(1800),
  /** Open streams per (key, client address), and per api process (v1.1). */
  STREAM_MAX_PER_CLIENT: positive(256),
  STREAM_MAX: positive(15_000),
  /** Take the client address from the first `X-Forwarded-For` hop (behind a proxy you run). */
  TRUST_PROXY: z.enum(['true', 'false']).default('false'),
  /** Prometheus metrics: never on a public port. Each app has its own default port. */
  METRICS_PORT: portNumber.optional(),
  METRICS_HOST: z.string().min(1).default('127.0.0.1'),
  /** How long a client may take to send a request's headers, and the whole request. */
  REQUEST_HEADERS_TIMEOUT_MS: positive(15_000),
  REQUEST_TIMEOUT_MS: positive(30_000),
  SHUTDOWN_GRACE_MS: positive(10_000),
  /** Workload identities: plain-http upstreams allowed (tests, air-gapped labs only). */
  IDENTITY_ALLOW_HTTP: z.enum(['true', 'false']).default('false'),
  /** Workload identities: token exchanges per identity per minute. */
  IDENTITY_EXCHANGE_MAX: positive(60),
  /**
   * api processes serving one port (node:cluster), each following the change log itself:
   * `auto` is one per core. More streams per machine than one process's open-file cap allows.
   */
  API_WORKERS: z.union([z.literal('auto'), z.coerce.number().int().min(1).max(64)]).default(1),
  /**
   * `true`: the console seeds the demo workspace on first start and keeps its keys in plaintext
   * in DATA_DIR/demo-seed.json. Never in production; `pnpm start` (the local launcher) sets it.
   */
  SEED_DEMO: z.enum(['true', 'false']).default('false'),
});

export type Settings = z.infer<typeof schema> & { dataDir: string };

/** Raised for invalid settings; the message names every bad variable. */
export class SettingsError extends Error {}

export function loadSettings(env: NodeJS.ProcessEnv = process.env): Settings {
  // An empty variable means "not set", as shells and .env files commonly produce.
  const present = Object.fromEntries(
    Object.entries(env).filter(([, v]) => v !== undefined && v !== ''),
  );
  const parsed = schema.safeParse(present);
  if (!parsed.success) {
    const problems = parsed.error.issues.map((i) => `${i.path.join('.')}: ${i.message}`);
    throw new SettingsError(`invalid settings:\n  ${problems.join('\n  ')}`);
  }
  return { ...parsed.data, dataDir: resolve(parsed.data.DATA_DIR) };
}
