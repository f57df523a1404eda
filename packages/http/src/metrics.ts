import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';

/** Prometheus metrics of one process, served at `/metrics`. */
export class Metrics {
  readonly registry = new Registry();
  /**
   * Requests by route, then status, counted as plain numbers and handed to prom-client on
   * scrape. Two lookups and no key made per request: a route is one string of the route table
   * (its hash computed once), a status a small integer.
   */
  private readonly requestCounts = new Map<string, Map<number, number>>();
  readonly requests = new Counter({
    name: 'svc_http_requests_total',
    help: 'HTTP requests by route and status',
    labelNames: ['route', 'status'] as const,
    registers: [this.registry],
    collect: () => {
      this.requests.reset();
      for (const [route, byStatus] of this.requestCounts) {
        for (const [status, n] of byStatus) this.requests.inc({ route, status: String(status) }, n);
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

  /** Counts one request (prom-client's own `inc` hashes its labels on every call). */
  countRequest(route: string, status: number): void {
    let byStatus = this.requestCounts.get(route);
    if (!byStatus) this.requestCounts.set(route, (byStatus = new Map()));
    byStatus.set(status, (byStatus.get(status) ?? 0) + 1);
  }

  constructor(prefix = 'svc_') {
    collectDefaultMetrics({ register: this.registry, prefix });
  }
}
