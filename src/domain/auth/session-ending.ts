import type { DomainDeps } from '../domain-deps.js';

/**
 * Ends every session of a user in the store and announces it with `sessionsEnded`: the sessions module of this
 * instance stops accepting their tokens at once, live streams end, other instances notice within a second.
 * Access tokens carry the role they were issued with, so a user given another role must sign in again.
 */
export async function endSessionsOfUser(
  deps: Pick<DomainDeps, 'store' | 'clock'> & { events?: DomainDeps['events'] },
  userId: string,
  reason: 'user deleted' | 'role changed',
): Promise<void> {
  const ended = await deps.store.sessions.endAllOfUser(userId, deps.clock.now(), reason);
  if (ended.length > 0) deps.events?.emit('sessionsEnded', { sessionIds: ended, reason });
}
