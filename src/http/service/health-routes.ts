import type { FastifyInstance } from 'fastify';
import { serviceUnavailable } from '../../domain/errors.js';
import { problemBody } from '../problem.js';

/** A dependency the platform needs to serve: readiness answers 503 while any of them fails. */
export interface ReadinessCheck {
  name: string;
  check(): Promise<void>;
}

const checkTimeoutMs = 2000;

/** `/healthz` (the process answers) and `/readyz` (store and broker answer). `/metrics` is metrics-route.ts. */
export function registerHealthRoutes(app: FastifyInstance, deps: { checks: readonly ReadinessCheck[] }): void {
  app.get('/healthz', async () => ({ status: 'ok' }));

  app.get('/readyz', async (_request, reply) => {
    const results = await Promise.all(deps.checks.map(async (c) => [c.name, await runCheck(c)] as const));
    const checks = Object.fromEntries(results);
    if (results.every(([, result]) => result === 'ok')) return { status: 'ready', checks };
    const failing = results.filter(([, result]) => result !== 'ok').map(([name]) => name);
    const body = { ...problemBody(serviceUnavailable(`Not ready: ${failing.join(', ')} not reachable.`)), checks };
    return reply.code(503).send(body);
  });
}

async function runCheck(readiness: ReadinessCheck): Promise<string> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      readiness.check(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error('timeout')), checkTimeoutMs);
      }),
    ]);
    return 'ok';
  } catch {
    return 'unreachable';
  } finally {
    clearTimeout(timer);
  }
}
