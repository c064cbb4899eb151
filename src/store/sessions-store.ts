import type { Kysely, Selectable } from 'kysely';
import type { Schema, SessionsTable } from './schema.js';

export type SessionsStore = ReturnType<typeof sessionsStore>;

export interface StoredSession {
  id: string;
  organizationId: string;
  userId: string;
  refreshJti: string;
  createdAt: number;
  refreshedAt: number;
  expiresAt: number;
  endedAt: number | null;
  endReason: string | null;
  /** Single sign-on: the provider session (`sid`) and subject (`sub`) this session was started from. */
  ssoSid?: string | null;
  ssoSub?: string | null;
}

export function sessionsStore(db: Kysely<Schema>) {
  return {
    async create(session: StoredSession): Promise<void> {
      await db
        .insertInto('sessions')
        .values({
          id: session.id,
          organization_id: session.organizationId,
          user_id: session.userId,
          refresh_jti: session.refreshJti,
          created_at: session.createdAt,
          refreshed_at: session.refreshedAt,
          expires_at: session.expiresAt,
          ended_at: null,
          end_reason: null,
          sso_sid: session.ssoSid ?? null,
          sso_sub: session.ssoSub ?? null,
        })
        .execute();
    },
    async get(id: string): Promise<StoredSession | undefined> {
      const row = await db.selectFrom('sessions').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toSession(row);
    },
    /**
     * Replaces the refresh token id, only if `expectedJti` is still the current one and the session is active:
     * of two concurrent refreshes with the same token exactly one wins. False when it lost or the session ended.
     */
    async rotate(id: string, expectedJti: string, next: { jti: string; refreshedAt: number; expiresAt: number }): Promise<boolean> {
      const result = await db
        .updateTable('sessions')
        .set({ refresh_jti: next.jti, refreshed_at: next.refreshedAt, expires_at: next.expiresAt })
        .where('id', '=', id)
        .where('refresh_jti', '=', expectedJti)
        .where('ended_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Ends a session (logout, reuse detected); true when it was active. */
    async end(id: string, endedAt: number, reason: string): Promise<boolean> {
      const result = await db
        .updateTable('sessions')
        .set({ ended_at: endedAt, end_reason: reason })
        .where('id', '=', id)
        .where('ended_at', 'is', null)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Ends every active session of a user (user deleted); returns their ids. */
    /** Ends every live session of a user but `exceptId` (when given); answers the ids ended. */
    async endAllOfUser(userId: string, endedAt: number, reason: string, exceptId?: string): Promise<string[]> {
      const live = db.selectFrom('sessions').select('id').where('user_id', '=', userId).where('ended_at', 'is', null);
      const rows = await (exceptId === undefined ? live : live.where('id', '!=', exceptId)).execute();
      if (rows.length > 0) {
        await db
          .updateTable('sessions')
          .set({ ended_at: endedAt, end_reason: reason })
          .where(
            'id',
            'in',
            rows.map((row) => row.id),
          )
          .where('ended_at', 'is', null)
          .execute();
      }
      return rows.map((row) => row.id);
    },
    /**
     * Ends the active sessions started from a provider session (`sid`), or, with only `sub`, every active session
     * started from that provider subject (back-channel logout); returns their ids.
     */
    async endBySso(match: { sid?: string; sub?: string }, endedAt: number, reason: string): Promise<string[]> {
      if (match.sid === undefined && match.sub === undefined) return [];
      let query = db.selectFrom('sessions').select('id').where('ended_at', 'is', null);
      if (match.sid !== undefined) query = query.where('sso_sid', '=', match.sid);
      if (match.sub !== undefined) query = query.where('sso_sub', '=', match.sub);
      const ids = (await query.execute()).map((row) => row.id);
      if (ids.length > 0)
        await db
          .updateTable('sessions')
          .set({ ended_at: endedAt, end_reason: reason })
          .where('id', 'in', ids)
          .where('ended_at', 'is', null)
          .execute();
      return ids;
    },
  };
}

function toSession(row: Selectable<SessionsTable>): StoredSession {
  return {
    id: row.id,
    organizationId: row.organization_id,
    userId: row.user_id,
    refreshJti: row.refresh_jti,
    createdAt: row.created_at,
    refreshedAt: row.refreshed_at,
    expiresAt: row.expires_at,
    endedAt: row.ended_at,
    endReason: row.end_reason,
    ssoSid: row.sso_sid,
    ssoSub: row.sso_sub,
  };
}
