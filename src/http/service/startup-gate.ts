import type { FastifyInstance } from 'fastify';
import { starting } from '../../domain/errors.js';
import { sendProblem } from '../problem.js';

/** Answered while starting too: liveness must not fail a slow first start, and a scrape shows how it goes. */
const openWhileStarting = new Set(['/healthz', '/metrics']);

/**
 * Until start-up has finished (store migrated, the first organization and its credentials created, consumers
 * started), every request but the liveness probe and metrics is answered 503 `STARTING` with `Retry-After: 1`,
 * `/readyz` included: the listener is bound early so that a port in use fails the start before anything is created,
 * and a caller that arrives in between is early, not wrong (a 401 for the bootstrap credentials would send it away).
 */
export function registerStartupGate(app: FastifyInstance, isStarting: () => boolean): void {
  app.addHook('onRequest', async (request, reply) => {
    if (!isStarting() || openWhileStarting.has(request.url.split('?')[0]!)) return;
    return sendProblem(reply, starting());
  });
}
