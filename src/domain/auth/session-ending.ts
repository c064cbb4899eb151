import { recordAudit } from '../audit/audit-recorder.js';
import { auditFields } from '../audit/audit-types.js';
import type { DomainDeps } from '../domain-deps.js';

/**
 * Ends every session of a user in the store and announces it with `sessionsEnded`: the sessions module of this
 * instance stops accepting their tokens at once, live streams end, other instances notice within a second.
 * Access tokens carry the role they were issued with, so a user given another role must sign in again.
 */
export async function endSessionsOfUser(
  deps: Pick<DomainDeps, 'store' | 'clock'> & { events?: DomainDeps['events'] },
  userId: string,
  reason: 'user deleted' | 'role changed' | 'password changed' | 'password reset',
  /** A session that goes on (the one that changed its own password). */
  exceptSessionId?: string,
): Promise<void> {
  // The session ends (by whatever the caller did: a Manager's role change, a deletion) recorded with the change.
  const ended = await deps.store.transaction(async () => {
    const ended = await deps.store.sessions.endAllOfUser(userId, deps.clock.now(), reason, exceptSessionId);
    for (const sessionId of ended) {
      const session = await deps.store.sessions.get(sessionId);
      if (!session) continue;
      await recordAudit(deps, undefined, {
        organizationId: session.organizationId,
        action: 'session.end',
        target: { type: 'session', id: sessionId },
        outcome: 'success',
        details: auditFields({ reason, userId }),
      });
    }
    return ended;
  });
  if (ended.length > 0) deps.events?.emit('sessionsEnded', { sessionIds: ended, reason });
}
