/**
 * A migrated store with organization `acme`, its batch writer and the sweep's compaction, for the rollup tests: uplinks
 * committed as ingest commits them, compaction run as the sweep runs it.
 */
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { retentionExpiry } from '../../src/store/retention/retention-expiry.js';
import { openMigratedStore } from './databases.js';

export const hour = 3600;
export const day = 86_400;
/** A UTC day's start. */
export const d0 = 1_790_035_200 - (1_790_035_200 % day);
const records = (messages: Record<string, unknown>[]) =>
  parseUplink(JSON.stringify(messages), { organizationId: 'acme', gatewayTuid: 'GW', source: 'test', client: null, receivedAt: Date.now() })
    .records;
/** A 12100 message with `temp` of value / 4 (quarters are exact in binary: sums come out the same in any order). */
export const reading = (tuid: string, tsmTs: number, value: number) => ({ tsmId: 12100, tsmTs, tsmTuid: tuid, temp: value / 4 });

export async function rollupStoreWith(url: string) {
  const { database, store } = await openMigratedStore(url);
  await createOrganization({ store, clock: systemClock }, { name: 'acme', id: 'acme' });
  const commit = ingestBatchWriter(database);
  const expiry = retentionExpiry(database, commit);
  const rows = async (table: 'thing_rollups' | 'thing_rollup_days' | 'group_rollup_days') =>
    Number(
      (
        await database.db
          .selectFrom(table)
          .select((eb) => eb.fn.countAll().as('n'))
          .executeTakeFirstOrThrow()
      ).n,
    );
  return {
    database,
    store,
    rows,
    commit: (messages: Record<string, unknown>[]) => commit(records(messages), []),
    compact: (before: number) => expiry.compactRollups({ rawBefore: before, hourlyBefore: before }),
    close: async () => {
      await commit.close();
      await database.close();
    },
  };
}
