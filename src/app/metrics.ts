import { Counter, Histogram, Registry, collectDefaultMetrics } from 'prom-client';

/**
 * The platform's Prometheus metrics, in a registry of its own (not prom-client's global one), so several
 * platform instances in one test process never share counters.
 */
export function createMetrics() {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry, prefix: 'thingdesk_' });
  return {
    registry,
    httpRequests: new Counter({
      name: 'thingdesk_http_requests_total',
      help: 'HTTP requests answered, by method, route and status code.',
      labelNames: ['method', 'route', 'status'] as const,
      registers: [registry],
    }),
    httpDuration: new Histogram({
      name: 'thingdesk_http_request_duration_seconds',
      help: 'Time to answer an HTTP request, by route.',
      labelNames: ['route'] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
  };
}

export type Metrics = ReturnType<typeof createMetrics>;
