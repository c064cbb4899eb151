import { isIP } from 'node:net';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { AppError, unauthenticated } from '../../domain/errors.js';
import type { Metrics } from '../../observability/metrics.js';
import { sendsSharedToken } from '../bearer-token.js';

/**
 * `GET /metrics`: the Prometheus text of the platform's registry, on the API listener or on METRICS_PORT's own.
 * With METRICS_TOKEN set it answers only `Authorization: Bearer <METRICS_TOKEN>` (compared in constant time);
 * anything else is 401 in the error shape. `loopbackOnly` (the API listener without a token): it answers only a
 * peer on this host, the socket's own address, never what X-Forwarded-For claims, and not a request a proxy
 * relayed (one carrying forwarding headers), so that what the figures tell (versions, counts, routes) is not open
 * to the Internet by default; anything else is 403.
 */
export function registerMetricsRoute(
  app: FastifyInstance,
  deps: { metrics: Metrics; token: string | undefined; loopbackOnly?: boolean },
): void {
  const { token } = deps;
  app.get('/metrics', async (request, reply) => {
    if (token !== undefined && !sendsSharedToken(request, token))
      throw unauthenticated('The metrics need Authorization: Bearer with METRICS_TOKEN.');
    if (token === undefined && deps.loopbackOnly && !fromThisHost(request)) {
      throw new AppError(
        'FORBIDDEN',
        '/metrics on the API port answers only this host; set METRICS_TOKEN, or METRICS_PORT for a listener of its own (docs/operations.md).',
      );
    }
    reply.type(deps.metrics.registry.contentType);
    return deps.metrics.registry.metrics();
  });
}

const forwardingHeaders = ['x-forwarded-for', 'forwarded', 'x-real-ip'] as const;

/** Whether the request's TCP peer is a loopback address and no proxy says it relays someone else's request. */
function fromThisHost(request: FastifyRequest): boolean {
  if (forwardingHeaders.some((header) => request.headers[header] !== undefined)) return false;
  return isLoopback(request.raw.socket.remoteAddress ?? '');
}

function isLoopback(address: string): boolean {
  const v4 = address.startsWith('::ffff:') ? address.slice(7) : address;
  if (isIP(v4) === 4) return v4.startsWith('127.');
  return address === '::1';
}
