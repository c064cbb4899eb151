import { timingSafeEqual } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import { unauthenticated } from '../../domain/errors.js';
import type { Metrics } from '../../observability/metrics.js';
import { bearerToken } from '../bearer-token.js';

/**
 * `GET /metrics`: the Prometheus text of the platform's registry, on the API listener or on METRICS_PORT's own.
 * With METRICS_TOKEN set it answers only `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time);
 * anything else is 401 in the error shape.
 */
export function registerMetricsRoute(app: FastifyInstance, deps: { metrics: Metrics; token: string | undefined }): void {
  const expected = deps.token === undefined ? undefined : Buffer.from(deps.token);
  app.get('/metrics', async (request, reply) => {
    if (expected) {
      const sent = Buffer.from(bearerToken(request) ?? '');
      if (sent.length !== expected.length || !timingSafeEqual(sent, expected))
        throw unauthenticated('The metrics need Authorization: Bearer with METRICS_TOKEN.');
    }
    reply.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}
