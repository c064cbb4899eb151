import { sql, type Kysely } from 'kysely';
import type { RuleScope } from '../domain/rules/rule-types.js';
import { unassignedGroupId } from '../domain/groups/unassigned-group.js';
import { previewScanRows } from '../domain/rules/rule-preview-bounds.js';
import type { Schema } from './schema.js';

export type RulePreviewStore = ReturnType<typeof rulePreviewStore>;

/** The newest message of one id among a thing's latest messages (the preview reads no further back, see below). */
export interface LatestMessage {
  tuid: string;
  body: string;
  receivedAt: number;
}

/**
 * Reads of the rule form's preview (SPEC section 13): the things a scope covers and their last messages of an id.
 * The scope test in SQL is the one of rule-conditions.ts `inScope` (each given list narrows; `unassigned`: no group).
 */
export function rulePreviewStore(db: Kysely<Schema>) {
  function inScope(organizationId: string, scope: RuleScope) {
    let query = db.selectFrom('things').where('organization_id', '=', organizationId);
    if (scope.tuids !== null) query = query.where('tuid', 'in', scope.tuids);
    const { groupIds } = scope;
    if (groupIds !== null) {
      const named = groupIds.filter((id) => id !== unassignedGroupId);
      const unassigned = groupIds.includes(unassignedGroupId);
      query = query.where((eb) =>
        eb.or([...(named.length > 0 ? [eb('group_id', 'in', named)] : []), ...(unassigned ? [eb('group_id', 'is', null)] : [])]),
      );
    }
    return query;
  }

  return {
    /** How many things of the organization the scope covers, and up to `limit` of them, the most recently heard first. */
    async thingsInScope(organizationId: string, scope: RuleScope, limit: number): Promise<{ count: number; tuids: string[] }> {
      const [counted, rows] = await Promise.all([
        inScope(organizationId, scope)
          .select((eb) => eb.fn.countAll<number>().as('n'))
          .executeTakeFirstOrThrow(),
        inScope(organizationId, scope)
          .select('tuid')
          // NULL sorts differently on the two stores: never heard goes last on both.
          .orderBy(sql`coalesce(last_heard_at, -1)`, 'desc')
          .orderBy('tuid')
          .limit(limit)
          .execute(),
      ]);
      return { count: Number(counted.n), tuids: rows.map((row) => row.tuid) };
    },

    /** Each thing's newest message of `tsmId` among its `previewScanRows` newest; things without one are left out. */
    async latestMessages(organizationId: string, tuids: readonly string[], tsmId: number): Promise<LatestMessage[]> {
      const found = await Promise.all(
        tuids.map((tuid) =>
          db
            .selectFrom(
              db
                .selectFrom('messages')
                .select(['tuid', 'tsm_id', 'tsm_ts', 'fingerprint', 'organization_id', 'received_at', 'body'])
                .where('tuid', '=', tuid)
                .orderBy('tsm_ts', 'desc')
                .orderBy('tsm_id', 'desc')
                .orderBy('fingerprint', 'desc')
                .limit(previewScanRows)
                .as('recent'),
            )
            .select(['recent.tuid', 'recent.body', 'recent.received_at'])
            .where('recent.tsm_id', '=', tsmId)
            .where('recent.organization_id', '=', organizationId)
            .orderBy('recent.tsm_ts', 'desc')
            .orderBy('recent.fingerprint', 'desc')
            .limit(1)
            .executeTakeFirst(),
        ),
      );
      return found.flatMap((row) => (row ? [{ tuid: row.tuid, body: row.body, receivedAt: Number(row.received_at) }] : []));
    },
  };
}
