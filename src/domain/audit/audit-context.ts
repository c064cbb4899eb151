import { AsyncLocalStorage } from 'node:async_hooks';
import type { Principal } from '../auth/principal.js';
import type { AuditActor, AuditContext, AuditVia } from './audit-types.js';

/**
 * The request a domain call runs for: set once at each edge (the REST and GraphQL request hooks, the CLI's
 * `withStore`, the ingest writer, the platform's timers) and read by the recorder. What the edge knows about the
 * request (interface, request id, address) rides here; who acts comes from the principal the domain call takes
 * (explicit in every signature), or from the edge where there is none (the CLI, the platform).
 */
export interface AuditScope {
  via: AuditVia;
  requestId: string | null;
  address: string | null;
  /** The actor when the call takes no principal (CLI, system, MQTT). */
  actor?: AuditActor;
}

const scopes = new AsyncLocalStorage<AuditScope>();

/** Runs `work` with `scope` as the request every audited call inside it belongs to. */
export function withAuditScope<T>(scope: AuditScope, work: () => T): T {
  return scopes.run(scope, work);
}

/** The current scope, if an edge set one. */
export function currentAuditScope(): AuditScope | undefined {
  return scopes.getStore();
}

export const systemActor: AuditActor = { type: 'system', id: 'system', label: 'thingdesk' };

/** The actor a principal is: a user (GraphQL) or an API client (REST). */
export function actorOf(principal: Principal): AuditActor {
  return principal.kind === 'user'
    ? { type: 'user', id: principal.userId, label: principal.email }
    : { type: 'api_client', id: principal.clientId, label: principal.clientId };
}

/**
 * The context of an entry: the principal's actor where the call has one, the edge's otherwise; the edge's
 * interface, request id and address. Without an edge (a domain function called directly), the principal's
 * interface (users call through GraphQL, clients through REST) or the platform itself.
 */
export function auditContextOf(principal: Principal | undefined): AuditContext {
  const scope = scopes.getStore();
  // At the command line the actor is the CLI's operator: a principal a command passes only stands for its organization.
  const actor = principal && scope?.via !== 'cli' ? actorOf(principal) : (scope?.actor ?? systemActor);
  const via: AuditVia = scope?.via ?? (principal ? (principal.kind === 'user' ? 'graphql' : 'rest') : 'system');
  return { actor, via, requestId: scope?.requestId ?? null, address: scope?.address ?? null };
}
