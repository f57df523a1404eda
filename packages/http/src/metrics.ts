import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one process, served at `/metrics`. */
export class Metrics {
  readonly registry = new Registry();
  /** Requests by `route status`, counted as plain numbers and handed to prom-client on scrape. */
  private readonly requestCounts = new Map<string, { route: string; status: string; n: number }>();
  readonly requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
    collect: () => {
      this.requests.reset();
      for (const { route, status, n } of this.requestCounts.values()) {
        this.requests.inc({ route, status }, n);
      }
    },
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

  /** Counts one request: a map lookup and an addition (prom-client's labels hash on every call). */
  countRequest(route: string, status: number): void {
    const id = `${route} ${status}`;
    const count = this.requestCounts.get(id);
    if (count) count.n += 1;
    else this.requestCounts.set(id, { route, status: String(status), n: 1 });
  }

  constructor(prefix = 'svc_') {
    collectDefaultMetrics({ register: this.registry, prefix });
  }
}
