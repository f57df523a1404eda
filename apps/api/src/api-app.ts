/**
 * Composition root of the public /v1 service: storage, the read model kept current by the
 * change feed, and the HTTP listener.
 */
import type { AddressInfo } from 'node:net';
import { once } from 'node:events';
import {
  IdentityExchange,
  KeyUsage,
  ReadModel,
  SecretWrites,
  SyncQuarantine,
  systemClock,
  ViewTokens,
} from '@svc/domain';
import { apiKeyGenerator, SealError, sha256Digest, sha256KeyHasher } from '@svc/crypto';
import { createIdentityVerifier } from '@svc/identity';
import {
  clientAddressOf,
  createApiServer,
  Metrics,
  serveMetrics,
  shareMetricsWithPrimary,
  SyncAnswers,
  type MetricsListener,
} from '@svc/http';
import {
  changeLogLogging,
  createSealer,
  createTokenSigner,
  openStorage,
  type Logger,
  type Settings,
} from '@svc/runtime';
import { OfrepEventHub, StreamHub } from '@svc/sse';

/** How often `last_used_at` of API keys is written. */
const KEY_USAGE_FLUSH_MS = 30_000;
/** The api's metrics port unless METRICS_PORT says otherwise (the console's is 9465). */
export const API_METRICS_PORT = 9464;

export interface ApiApp {
  /** The bound port (useful with PORT=0). */
  port: number;
  /** The bound port of `/metrics` (none in a cluster worker: the primary serves them). */
  metricsPort: number | undefined;
  model: ReadModel;
  close(): Promise<void>;
}

/** What a cluster worker (`API_WORKERS` > 1) is told by its primary. */
export interface ClusterPeers {
  /** Whether every other worker is ready too: `/readyz` answers for all of them. */
  ready(): boolean;
}

export async function startApi(
  settings: Settings,
  logger: Logger,
  options: { cluster?: ClusterPeers } = {},
): Promise<ApiApp> {
  const storage = await openStorage(settings, {
    onConnectionError: (error) => logger.warn({ err: error }, 'database connection lost'),
    onInsecureFile: (message) => logger.warn(message),
  });
  const { sealer, source } = createSealer(settings);
  const metrics = new Metrics();
  const keyUsage = new KeyUsage({ store: storage.store, clock: systemClock });
  const changeLog = changeLogLogging(logger);
  const model = new ReadModel({
    onKeyUsed: keyUsage.record,
    onUnopenable: changeLog.onUnopenable,
    store: storage.store,
    sealer,
    hasher: sha256KeyHasher,
    digest: sha256Digest,
  });
  let ready = false;
  const feed = storage.changeFeed({ onError: changeLog.onFeedError });
  const quarantine = new SyncQuarantine({
    max: settings.SYNC_QUARANTINE_MAX,
    windowMs: settings.SYNC_QUARANTINE_WINDOW_S * 1000,
    quarantineMs: settings.SYNC_QUARANTINE_S * 1000,
    clock: systemClock,
  });
  const writes = new SecretWrites({
    store: storage.store,
    model,
    sealer,
    limiter: storage.writeRateLimiter({
      max: settings.WRITE_RATE_LIMIT_MAX,
      windowSeconds: settings.WRITE_RATE_LIMIT_WINDOW_S,
    }),
    // Our own write: read it from the log now rather than at the next poll.
    afterWrite: () => feed.poke(),
    onApplyTimeout: changeLog.onApplyTimeout,
  });

  const exchange = new IdentityExchange({
    store: storage.store,
    verifier: createIdentityVerifier({
      policy: { allowHttp: settings.IDENTITY_ALLOW_HTTP === 'true' },
    }),
    sealer,
    hasher: sha256KeyHasher,
    keys: apiKeyGenerator,
    clock: systemClock,
    limiter: storage.writeRateLimiter({
      max: settings.IDENTITY_EXCHANGE_MAX,
      windowSeconds: 60,
      name: 'identity-exchanges',
    }),
    model,
    // The minted key: read it from the log now, so the answer comes once it works here.
    afterMint: () => feed.poke(),
  });

  // Sync bodies (and their gzip and brotli forms) are made once per view revision.
  const syncAnswers = new SyncAnswers((id) => model.view(id));
  const streamLimits = {
    maxAgeMs: settings.STREAM_MAX_AGE_S * 1000,
    maxStreams: settings.STREAM_MAX,
    maxPerClient: settings.STREAM_MAX_PER_CLIENT,
    metrics,
  };
  const hub = new StreamHub(streamLimits);
  // OpenFeature (OFREP) event streams: their own frames, the same lifecycle and limits.
  const ofrep = {
    hub: new OfrepEventHub(streamLimits),
    tokens: new ViewTokens({
      signer: createTokenSigner(settings, 'svc ofrep view token v1'),
      clock: systemClock,
    }),
  };
  const server = createApiServer({
    model,
    hub,
    writes,
    syncGuard: quarantine.guard,
    clientAddress: clientAddressOf(settings.TRUST_PROXY === 'true'),
    syncAnswers,
    ofrep,
    exchange,
    baseDomain: settings.BASE_DOMAIN,
    logger,
    metrics,
    ready: () => ready && (options.cluster?.ready() ?? true),
    headersTimeoutMs: settings.REQUEST_HEADERS_TIMEOUT_MS,
    requestTimeoutMs: settings.REQUEST_TIMEOUT_MS,
  });
  server.listen(settings.PORT, settings.HOST);
  await once(server, 'listening');
  let metricsListener: MetricsListener | undefined;
  if (options.cluster) shareMetricsWithPrimary(metrics);
  else {
    metricsListener = await serveMetrics(
      metrics,
      { host: settings.METRICS_HOST, port: settings.METRICS_PORT, defaultPort: API_METRICS_PORT },
      (message) => logger.warn(message),
    );
  }
  const metricsServer = metricsListener?.server;
  const metricsPort = metricsListener?.port;

  try {
    await model.load();
  } catch (error) {
    server.close();
    metricsServer?.close();
    await Promise.all([hub.close(), ofrep.hub.close()]);
    await storage.store.close();
    if (error instanceof SealError) {
      throw new Error(
        `the root key from ${source} does not open the secrets in ${storage.describe}: wrong root key?`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
  await feed.follow(model.seq, async (changes) => {
    const applied = await model.apply(changes);
    hub.publish(applied);
    syncAnswers.refresh(applied.views.map((changed) => changed.view));
    ofrep.hub.publish(applied);
    ofrep.hub.settingsChanged(changes);
    metrics.changeSeq.set(model.seq);
    metrics.views.set(model.viewCount);
    logger.debug(
      { changes: changes.length, views: applied.views.length, seq: model.seq },
      'changes applied',
    );
  });
  metrics.changeSeq.set(model.seq);
  metrics.views.set(model.viewCount);
  const usageTimer = setInterval(() => {
    keyUsage
      .flush()
      .catch((error: unknown) => logger.warn({ err: error }, 'recording key use failed'));
  }, KEY_USAGE_FLUSH_MS);
  usageTimer.unref();
  ready = true;
  const port = (server.address() as AddressInfo).port;
  logger.info(
    { port, metricsPort, storage: storage.describe, views: model.viewCount, seq: model.seq },
    'api ready',
  );

  return {
    port,
    metricsPort,
    model,
    async close() {
      ready = false;
      const closed = new Promise<void>((resolve) => server.close(() => resolve()));
      // Streams end cleanly first; their connections are then idle and close with the rest.
      await Promise.all([hub.close(), ofrep.hub.close()]);
      server.closeIdleConnections();
      await closed;
      metricsServer?.close();
      clearInterval(usageTimer);
      await keyUsage.flush();
      await feed.close();
      await storage.store.close();
    },
  };
}
