import cors from '@fastify/cors';
import type { FastifyInstance } from 'fastify';

/** How long a browser may reuse a preflight answer (seconds); browsers cap it (Chromium at 7200). */
export const corsMaxAgeS = 600;

/**
 * CORS for REST, GraphQL over HTTP and SSE (issue 19), by @fastify/cors: `origins` lists the web origins whose pages
 * may call the platform, or is `*` for any. A listed origin gets `Access-Control-Allow-Origin` with itself (and
 * `Vary: Origin`), its preflights are answered (the methods, `Authorization` and `Content-Type`, a max age); an
 * origin not listed gets no CORS header at all, and its preflight the usual 404. Credentials (cookies) are never
 * allowed: the platform authenticates by bearer token, which a page sends in `Authorization`. With no origins
 * nothing is registered: same-origin only. WebSocket upgrades are not subject to CORS.
 */
export async function registerCors(app: FastifyInstance, origins: readonly string[] | '*'): Promise<void> {
  if (origins !== '*' && origins.length === 0) return;
  const listed = origins === '*' ? undefined : new Set(origins);
  await app.register(cors, {
    origin: listed ? (origin, callback) => callback(null, origin !== undefined && listed.has(origin) ? origin : false) : '*',
    credentials: false,
    methods: ['GET', 'POST', 'PATCH', 'DELETE'],
    allowedHeaders: ['Authorization', 'Content-Type'],
    exposedHeaders: ['X-Request-Id', 'Retry-After'],
    maxAge: corsMaxAgeS,
    // A listed origin's OPTIONS without Access-Control-Request-Method is answered as a preflight too, rather
    // than with the library's plain-text 400.
    strictPreflight: false,
  });
}
