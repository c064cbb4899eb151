import type { Store } from '../../store/store.js';
import type { DeadLetterRecord, IngestBatchResult, UplinkRecord } from '../messages/message-types.js';
import { brokenNewTuidRule } from './tuid.js';

type CommitBatch = (records: readonly UplinkRecord[], deadLetters: readonly DeadLetterRecord[]) => Promise<IngestBatchResult>;

/**
 * The TUID rule for uplinks: wraps the ingest pipeline's batch writer so that an uplink that would claim a thing
 * under a reserved TUID (things/tuid.ts) is dead-lettered with the reason instead of stored. Only a TUID nobody
 * owns is refused (the writer would claim it); a reserved TUID costs one read, any other TUID nothing.
 */
export function refuseReservedTuidClaims(
  commit: CommitBatch,
  deps: { store: Pick<Store, 'things'>; reservedTuids: ReadonlySet<string> },
): CommitBatch {
  return async (records, deadLetters) => {
    const candidates = new Set(records.filter((record) => deps.reservedTuids.has(record.tuid)).map((record) => record.tuid));
    if (candidates.size === 0) return commit(records, deadLetters);
    const unowned = new Set<string>();
    for (const tuid of candidates) if (!(await deps.store.things.get(tuid))) unowned.add(tuid);
    if (unowned.size === 0) return commit(records, deadLetters);
    const refused = records
      .filter((record) => unowned.has(record.tuid))
      .map((record): DeadLetterRecord => ({
        organizationId: record.organizationId,
        receivedAt: record.receivedAt,
        source: `uplink via gateway ${record.gatewayTuid ?? 'unknown'}`,
        client: null,
        reason: brokenNewTuidRule(record.tuid, deps.reservedTuids, 'tsmTuid')!,
        payload: record.body,
      }));
    return commit(
      records.filter((record) => !unowned.has(record.tuid)),
      [...deadLetters, ...refused],
    );
  };
}
