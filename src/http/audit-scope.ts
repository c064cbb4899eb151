import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify';
import type { Principal } from '../domain/auth/principal.js';
import { actorOf, withAuditScope } from '../domain/audit/audit-context.js';
import { recordAudit, type AuditDeps } from '../domain/audit/audit-recorder.js';
import type { AuditVia } from '../domain/audit/audit-types.js';

/**
 * The audit scope of an HTTP request (SPEC 14): its interface, request id and address (request.ip, which honors
 * TRUST_PROXY), set before the handler runs so every domain call it makes records them. `principalOf` reads the
 * caller the interface authenticated.
 */
export function addAuditScope(
  app: Pick<FastifyInstance, 'addHook'>,
  via: AuditVia,
  principalOf: (request: FastifyRequest) => Principal | undefined,
): void {
  app.addHook('preHandler', auditScopeHook(via, principalOf));
}

/** The preHandler hook that runs the rest of a request in its audit scope. */
export function auditScopeHook(via: AuditVia, principalOf: (request: FastifyRequest) => Principal | undefined) {
  return (request: FastifyRequest, _reply: FastifyReply, done: () => void): void => {
    const principal = principalOf(request);
    withAuditScope({ via, requestId: String(request.id), address: request.ip, ...(principal && { actor: actorOf(principal) }) }, done);
  };
}

/**
 * A REST request refused with 403 (a signed-in caller whose rights do not cover the operation) is recorded as
 * `denied`, its action the route's operationId, before the answer goes out.
 */
export function recordDeniedRequests(
  app: Pick<FastifyInstance, 'addHook'>,
  deps: AuditDeps,
  principalOf: (request: FastifyRequest) => Principal | undefined,
): void {
  app.addHook('onSend', async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
    const principal = principalOf(request);
    if (reply.statusCode !== 403 || !principal) return payload;
    const schema = request.routeOptions.schema as { operationId?: string } | undefined;
    await recordAudit(deps, principal, {
      organizationId: principal.organizationId,
      action: schema?.operationId ?? `${request.method} ${request.routeOptions.url ?? ''}`,
      target: targetOfParams(request.params),
      outcome: 'denied',
      context: { via: 'rest', requestId: String(request.id), address: request.ip },
    });
    return payload;
  });
}

/** The target a request names in its path: a thing, a group, else the route's resource. */
export function targetOfParams(params: unknown): { type: string; id: string | null } {
  const p = (params ?? {}) as Record<string, unknown>;
  if (typeof p['tuid'] === 'string') return { type: 'thing', id: p['tuid'] };
  if (typeof p['groupid'] === 'string') return { type: 'group', id: p['groupid'] };
  return { type: 'operation', id: null };
}
