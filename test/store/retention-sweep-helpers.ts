/** What the retention sweep tests share: uplink records to commit, and a fresh store with a sweeper for each test. */
import { afterEach, beforeEach } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import type { UplinkRecord } from '../../src/domain/messages/message-types.js';
import { RetentionSweeper, type ExpireRollups } from '../../src/domain/retention/retention-sweeper.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { createLogger } from '../../src/observability/logger.js';
import type { Database } from '../../src/store/database.js';
import { ingestBatchWriter, type ClosableCommitIngestBatch } from '../../src/store/batch-writer/batch-writer.js';
import { retentionExpiry } from '../../src/store/retention/retention-expiry.js';
import type { Store } from '../../src/store/store.js';
import { openMigratedStore, type StoreTarget } from '../helpers/databases.js';

export const now = Date.now();
export const defaults = { messageRetentionDays: 365, rollupRetentionDays: 0, deadLetterRetentionDays: 30 };

/** One uplink record of `tuid` with its device time `tsmTs` (s), arrived at `receivedAt` (ms). */
export function record(
  organizationId: string,
  tuid: string,
  tsmTs: number,
  receivedAt: number,
  extra: Record<string, unknown> = {},
): UplinkRecord {
  const [parsed] = parseUplink(JSON.stringify([{ tsmId: 12100, tsmTs, tsmTuid: tuid, temp: 20, ...extra }]), {
    organizationId,
    gatewayTuid: 'GW-R',
    source: `thingdesk/${organizationId}/up/GW-R`,
    client: 'test',
    receivedAt,
  }).records;
  return parsed!;
}

export interface SweepTestContext {
  database: Database;
  store: Store;
  commit: ClosableCommitIngestBatch;
  clock: ManualClock;
  /** The sweeper's calls to expire rollups: organization, hour start before which, limit. */
  rollupCalls: [string, number, number][];
  sweeper: RetentionSweeper;
  /** The TUIDs of an organization's stored messages, one per message, in order. */
  tuidsOf(organizationId: string): Promise<string[]>;
}

/** A sweeper over the store with the tests' defaults, hourly and logging nothing; `instanceId` undefined takes no lease. */
export function testSweeper(
  { database, store, clock, commit }: Pick<SweepTestContext, 'database' | 'store' | 'clock' | 'commit'>,
  instanceId: string | undefined,
  expireRollups?: ExpireRollups,
): RetentionSweeper {
  return new RetentionSweeper({
    store,
    clock,
    expiry: retentionExpiry(database, commit),
    defaults,
    intervalS: 3600,
    instanceId,
    logger: createLogger('silent'),
    expireRollups,
  });
}

/**
 * Registers, inside a describe, a fresh store on the target for each test, with the organizations `short` and `long`,
 * an ingest batch writer and a sweeper at `now`.
 */
export function sweepTestStore(target: StoreTarget): SweepTestContext {
  const context = {
    tuidsOf: async (organizationId: string) =>
      (
        await sql<{ tuid: string }>`select tuid from messages where organization_id = ${organizationId} order by tuid`.execute(
          context.database.db,
        )
      ).rows.map((row) => row.tuid),
  } as SweepTestContext;
  beforeEach(async () => {
    const { database, store } = await openMigratedStore(await target.createUrl());
    const clock = new ManualClock(now);
    for (const name of ['Short', 'Long']) await createOrganization({ store, clock }, { name });
    const commit = ingestBatchWriter(database);
    const rollupCalls: SweepTestContext['rollupCalls'] = [];
    const expireRollups: ExpireRollups = async (organizationId, beforeHourStart, limit) => {
      rollupCalls.push([organizationId, beforeHourStart, limit]);
      return 0;
    };
    const sweeper = testSweeper(
      { database, store, clock, commit },
      database.dialect === 'postgres' ? 'sweeper-test' : undefined,
      expireRollups,
    );
    Object.assign(context, { database, store, commit, clock, rollupCalls, sweeper });
  });
  afterEach(async () => {
    await context.commit.close();
    await context.database.close();
  });
  return context;
}
