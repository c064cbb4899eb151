/**
 * The store-alone ceiling: the platform's own batch writer (`ingestBatchWriter`) on a fresh SQLite store (or an empty
 * PostgreSQL schema) with the
 * platform's migrations, fed the rows a fleet sends (10,000 simulated devices behind 100 gateways, interleaved as
 * the gateways' publishes interleave, read by `parseUplink`), in large transactions. Only the commits are timed:
 * producing and parsing the rows is the simulator's and the platform's CPU work, not the store's.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import type { UplinkRecord } from '../../src/domain/messages/message-types.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { layOutFleet, type DeviceUplink } from '../../src/simulator/index.js';
import { openDatabase } from '../../src/store/database.js';
import { ingestBatchWriter, type ClosableCommitIngestBatch } from '../../src/store/batch-writer/batch-writer.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';

export interface StoreCeilingOptions {
  gateways: number;
  devices: number;
  /** Messages per simulated publish (as the fleet's arrays). */
  publishSize: number;
  /** Records per transaction. */
  transactionSize: number;
  /** Stop after this many rows, or after `maxCommitS` of commit time, whichever comes first. */
  maxRows: number;
  maxCommitS: number;
  /**
   * The pace of the simulated clock, messages per second. Messages carry whole-second timestamps, so the pace
   * decides how often a device repeats an identical message within one second (a duplicate, not stored), as in
   * the fleet runs.
   */
  simulatedRate: number;
  /** A PostgreSQL URL (an empty schema) to measure instead of a fresh SQLite file. */
  databaseUrl?: string;
  /** False: the batch writer leaves the hourly rollups alone (bench/lifecycle measures what they cost). Default true. */
  rollups?: boolean;
}

export interface StoreCeiling {
  store: 'sqlite' | 'postgres';
  transactionSize: number;
  /** Rows stored per second of commit time. */
  rowsPerS: number;
  /** Records (stored + duplicates) offered per second of commit time. */
  recordsPerS: number;
  rows: number;
  duplicates: number;
  commitS: number;
  /** Mean time of one transaction. */
  commitMsMean: number;
  /** CPU time of parseUplink per message, for comparison with the platform's CPU budget. */
  parseMicrosPerMessage: number;
}

/** An endless stream of the fleet's publishes: gateways in turn, each taking its devices' next reports. */
function* publishes(options: StoreCeilingOptions): Generator<{ gatewayTuid: string; messages: DeviceUplink[]; now: number }> {
  const layout = layOutFleet('BENCH', options.gateways, options.devices);
  const cursors = layout.map(() => ({ next: 0, pending: [] as DeviceUplink[] }));
  const msPerMessage = 1000 / options.simulatedRate;
  let now = Date.now();
  for (let turn = 0; ; turn = (turn + 1) % layout.length) {
    const { gatewayTuid, devices } = layout[turn]!;
    const cursor = cursors[turn]!;
    while (cursor.pending.length < options.publishSize) {
      cursor.pending.push(...devices[cursor.next]!.nextMessages(now));
      cursor.next = (cursor.next + 1) % devices.length;
    }
    const messages = cursor.pending.splice(0, options.publishSize);
    now += msPerMessage * messages.length;
    yield { gatewayTuid, messages, now };
  }
}

export async function measureStoreCeiling(options: StoreCeilingOptions): Promise<StoreCeiling> {
  const dir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-store-'));
  const database = await openDatabase(options.databaseUrl ?? `file:${join(dir, 'store.db')}`);
  let commit: ClosableCommitIngestBatch | undefined;
  try {
    await migrateToLatest(database);
    const organization = await createOrganization({ store: createStore(database), clock: systemClock }, { name: 'Bench', id: 'bench' });
    commit = ingestBatchWriter(database, { rollups: options.rollups ?? true });
    const source = publishes(options);
    let parseMs = 0;
    let parsed = 0;
    const nextTransaction = (): UplinkRecord[] => {
      const records: UplinkRecord[] = [];
      while (records.length < options.transactionSize) {
        const { gatewayTuid, messages, now } = source.next().value!;
        const payload = JSON.stringify(messages);
        const started = performance.now();
        const result = parseUplink(payload, {
          organizationId: organization.id,
          gatewayTuid,
          source: `thingdesk/${organization.id}/up/${gatewayTuid}`,
          client: 'bench-gateway',
          receivedAt: Math.floor(now),
        });
        parseMs += performance.now() - started;
        parsed += result.received;
        records.push(...result.records);
      }
      return records;
    };

    // Untimed warm-up: claims the 10,000 things (as the fleet's warm-up does) and warms the statements.
    for (let warm = 0; warm * options.transactionSize < Math.max(20_000, options.devices * 3); warm++) await commit(nextTransaction(), []);

    let rows = 0;
    let duplicates = 0;
    let commitMs = 0;
    let transactions = 0;
    while (rows < options.maxRows && commitMs < options.maxCommitS * 1000) {
      const records = nextTransaction();
      const started = performance.now();
      const result = await commit(records, []);
      commitMs += performance.now() - started;
      transactions += 1;
      rows += result.stored.length;
      duplicates += result.duplicates;
    }
    const commitS = commitMs / 1000;
    return {
      store: database.dialect,
      transactionSize: options.transactionSize,
      rowsPerS: rows / commitS,
      recordsPerS: (rows + duplicates) / commitS,
      rows,
      duplicates,
      commitS,
      commitMsMean: commitMs / transactions,
      parseMicrosPerMessage: (parseMs * 1000) / parsed,
    };
  } finally {
    await commit?.close();
    await database.close();
    rmSync(dir, { recursive: true, force: true });
  }
}
