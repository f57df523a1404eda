/** Composition root of the console: management API (and page) over the shared store. */
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import { Management, RejectedLogins, systemClock } from '@svc/domain';
import { apiKeyGenerator, sha256KeyHasher } from '@svc/crypto';
import { createConsoleServer, Metrics, serveMetrics } from '@svc/http';
import { createSealer, openStorage, type Logger, type Settings } from '@svc/runtime';
import { resolveAdminToken, tokenChecker } from './admin-token.ts';
import { consolePage } from './console-page.ts';
import { seedDemo, type DemoSeed } from './demo-seed.ts';

/** Rejected sign-ins are audited at once after a quiet minute, else as one row a minute. */
const REJECTED_LOGINS_WINDOW_MS = 60_000;

/** The console's metrics port unless METRICS_PORT says otherwise (the api's is 9464). */
const METRICS_PORT = 9465;

export interface ConsoleApp {
  port: number;
  /** The bound port of `/metrics`. */
  metricsPort: number;
  adminToken: string;
  demo: DemoSeed | undefined;
  management: Management;
  close(): Promise<void>;
}

export async function startConsole(
  settings: Settings,
  logger: Logger,
  options: {
    /** Seeds the demo workspace and writes its keys to DATA_DIR/demo-seed.json. */
    seedDemo?: boolean;
  } = {},
): Promise<ConsoleApp> {
  const storage = await openStorage(settings, {
    onConnectionError: (error) => logger.warn({ err: error }, 'database connection lost'),
    onInsecureFile: (message) => logger.warn(message),
  });
  const { sealer } = createSealer(settings);
  const management = new Management({
    store: storage.store,
    hasher: sha256KeyHasher,
    keys: apiKeyGenerator,
    sealer,
    clock: systemClock,
    identityPolicy: { allowHttp: settings.IDENTITY_ALLOW_HTTP === 'true' },
  });
  const { token } = resolveAdminToken(settings.CONSOLE_ADMIN_TOKEN, settings.dataDir);
  // Only when asked (SEED_DEMO=true, which `pnpm start` sets): its keys are written in plaintext.
  const demo = options.seedDemo ? await seedDemo(management, settings.dataDir) : undefined;

  const metrics = new Metrics();
  const rejectedLogins = new RejectedLogins({ store: storage.store, clock: systemClock });
  const auditRejected = (write: Promise<void> | undefined) =>
    write?.catch((error: unknown) =>
      logger.error({ err: error }, 'could not audit rejected sign-ins'),
    );
  const flushRejected = setInterval(
    () => auditRejected(rejectedLogins.flush()),
    REJECTED_LOGINS_WINDOW_MS,
  ).unref();

  const server = createConsoleServer({
    management,
    checkToken: tokenChecker(token),
    onRejected: (address, reason) => void auditRejected(rejectedLogins.record(address, reason)),
    logger,
    metrics,
    ready: () => true,
    page: consolePage(),
    headersTimeoutMs: settings.REQUEST_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: settings.REQUEST_TIMEOUT_MS,
  });
  server.listen(settings.CONSOLE_PORT, settings.HOST);
  await once(server, 'listening');
  const port = (server.address() as AddressInfo).port;
  const { server: metricsServer, port: metricsPort } = await serveMetrics(
    metrics,
    { host: settings.METRICS_HOST, port: settings.METRICS_PORT, defaultPort: METRICS_PORT },
    (message) => logger.warn(message),
  );
  logger.info({ port, metricsPort, storage: storage.describe }, 'console ready');
  return {
    port,
    metricsPort,
    adminToken: token,
    demo,
    management,
    async close() {
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      await closed;
      metricsServer.close();
      clearInterval(flushRejected);
      await auditRejected(rejectedLogins.flush());
      await storage.store.close();
    },
  };
}
