import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one process, served at `/metrics`. */
export class Metrics {
  readonly registry = new Registry();
  readonly requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
  });
  readonly views = new Gauge({
    name: 'svc_views',
    help: 'Materialized views held in memory',
    registers: [this.registry],
  });
  readonly changeSeq = new Gauge({
    name: 'svc_change_seq',
    help: 'The change-log position this process has applied',
    registers: [this.registry],
  });

  readonly streamsOpen = new Gauge({
    name: 'svc_streams_open',
    help: 'Open GET /v1/stream responses',
    registers: [this.registry],
  });
  readonly streamEvents = new Counter({
    name: 'svc_stream_events_sent_total',
    help: 'Server-sent events written to streams (one per event per stream)',
    registers: [this.registry],
  });
  readonly slowStreamsDropped = new Counter({
    name: 'svc_stream_slow_clients_dropped_total',
    help: 'Streams dropped because the client stopped reading',
    registers: [this.registry],
  });

  private readonly requestCounters = new Map<string, { inc(): void }>();

  /** Counts one request; label children are cached so the hot path does no label hashing. */
  countRequest(route: string, status: number): void {
    const id = `${route} ${status}`;
    let counter = this.requestCounters.get(id);
    if (!counter) {
      counter = this.requests.labels(route, String(status));
      this.requestCounters.set(id, counter);
    }
    counter.inc();
  }

  constructor(prefix = 'svc_') {
    collectDefaultMetrics({ register: this.registry, prefix });
  }
}
