import type { FastifyInstance } from 'fastify';
import { unauthenticated } from '../../domain/errors.js';
import type { Metrics } from '../../observability/metrics.js';
import { sendsSharedToken } from '../bearer-token.js';

/**
 * `GET /metrics`: the Prometheus text of the platform's registry, on the API listener or on METRICS_PORT's own.
 * With METRICS_TOKEN set it answers only `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time);
 * anything else is 401 in the error shape.
 */
export function registerMetricsRoute(app: FastifyInstance, deps: { metrics: Metrics; token: string | undefined }): void {
  const { token } = deps;
  app.get('/metrics', async (request, reply) => {
    if (token !== undefined && !sendsSharedToken(request, token))
      throw unauthenticated('The metrics need Authorization: Bearer with METRICS_TOKEN.');
    reply.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}
