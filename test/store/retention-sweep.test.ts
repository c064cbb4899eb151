import assert from 'node:assert/strict';
import { after, afterEach, beforeEach, describe, test } from 'node:test';
import { sql } from 'kysely';
import { ManualClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import type { UplinkRecord } from '../../src/domain/messages/message-types.js';
import { dayMs } from '../../src/domain/retention/retention-rules.js';
import { rawHorizon } from '../../src/domain/retention/retention-service.js';
import { RetentionSweeper, type ExpireRollups } from '../../src/domain/retention/retention-sweeper.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { createLogger } from '../../src/observability/logger.js';
import type { Database } from '../../src/store/database.js';
import { ingestBatchWriter, type ClosableCommitIngestBatch } from '../../src/store/batch-writer/batch-writer.js';
import {
  createMessagePartitions,
  listMessagePartitions,
  messagePartitionStart,
  messagePartitionWidthMs,
} from '../../src/store/retention/message-partitions.js';
import { retentionExpiry } from '../../src/store/retention/retention-expiry.js';
import type { Store } from '../../src/store/store.js';
import { cleanupStores, openMigratedStore, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

const now = Date.now();
const defaults = { messageRetentionDays: 365, rollupRetentionDays: 0, deadLetterRetentionDays: 30 };

/** One uplink record of `tuid` with its device time `tsmTs` (s), arrived at `receivedAt` (ms). */
function record(
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

for (const target of storeTargets) {
  describe(`retention sweep on ${target.name}`, { skip: target.skip }, () => {
    let database: Database;
    let store: Store;
    let commit: ClosableCommitIngestBatch;
    let clock: ManualClock;
    let rollupCalls: [string, number, number][];
    let sweeper: RetentionSweeper;

    beforeEach(async () => {
      ({ database, store } = await openMigratedStore(await target.createUrl()));
      clock = new ManualClock(now);
      for (const name of ['Short', 'Long']) await createOrganization({ store, clock }, { name });
      commit = ingestBatchWriter(database);
      rollupCalls = [];
      const expireRollups: ExpireRollups = async (organizationId, beforeHourStart, limit) => {
        rollupCalls.push([organizationId, beforeHourStart, limit]);
        return 0;
      };
      sweeper = new RetentionSweeper({
        store,
        clock,
        expiry: retentionExpiry(database, commit),
        defaults,
        intervalS: 3600,
        instanceId: database.dialect === 'postgres' ? 'sweeper-test' : undefined,
        logger: createLogger('silent'),
        expireRollups,
      });
    });
    afterEach(async () => {
      await commit.close();
      await database.close();
    });

    const tuidsOf = async (organizationId: string) =>
      (
        await sql<{ tuid: string }>`select tuid from messages where organization_id = ${organizationId} order by tuid`.execute(database.db)
      ).rows.map((row) => row.tuid);

    test('messages expire by arrival, per organization: an override leaves the other organization to the default', async () => {
      // Weeks of old arrivals get partitions on PostgreSQL, as a store running for a year has them.
      if (database.dialect === 'postgres') await createMessagePartitions(database.db, now - 420 * dayMs, now);
      await store.retention.set('short', { messageRetentionDays: 30 });
      await commit(
        [
          record('short', 'S-60D', 1, now - 60 * dayMs),
          record('short', 'S-10D', 2, now - 10 * dayMs),
          record('long', 'L-60D', 3, now - 60 * dayMs),
          record('long', 'L-400D', 4, now - 400 * dayMs),
          // A device clock years behind (or a replayed backlog) arriving now: kept, age counts from arrival.
          record('long', 'L-OLD-TS', Math.floor(now / 1000) - 1000 * 86_400, now),
          record('short', 'S-OLD-TS', Math.floor(now / 1000) - 1000 * 86_400, now),
        ],
        [],
      );
      const report = await sweeper.sweep();
      assert.ok(report);
      assert.deepEqual(await tuidsOf('short'), ['S-10D', 'S-OLD-TS']);
      assert.deepEqual(await tuidsOf('long'), ['L-60D', 'L-OLD-TS']);
      if (database.dialect === 'postgres') {
        assert.ok(report.partitionsDropped >= 1, 'the partition of the 400-day-old arrival left whole');
        assert.equal(report.messages, 1, "the shorter retention's message deleted");
      } else assert.equal(report.messages, 2);
      // A second sweep finds nothing more.
      assert.equal((await sweeper.sweep())!.messages, 0);
    });

    test('retention 0 keeps forever; the rollup tier follows its own default and overrides', async () => {
      await store.retention.set('long', { messageRetentionDays: 0, rollupRetentionDays: 90 });
      await commit([record('long', 'L-3Y', 1, now - 3 * 365 * dayMs), record('short', 'S-3Y', 2, now - 3 * 365 * dayMs)], []);
      await sweeper.sweep();
      assert.deepEqual(await tuidsOf('long'), ['L-3Y']);
      assert.deepEqual(await tuidsOf('short'), []);
      // Rollups are kept forever by default (ROLLUP_RETENTION_DAYS=0): only the organization with 90 days expires any.
      const hour = 3_600_000;
      assert.deepEqual(rollupCalls, [['long', Math.floor((now - 90 * dayMs) / hour) * hour, 2000]]);
    });

    test('rawHorizon: Unix seconds before which raw messages may be gone, null when kept forever', async () => {
      const deps = { store, clock, retentionDefaults: defaults };
      await store.retention.set('short', { messageRetentionDays: 30 });
      await store.retention.set('long', { messageRetentionDays: 0 });
      assert.equal(await rawHorizon(deps, 'short'), Math.floor((now - 30 * dayMs) / 1000));
      assert.equal(await rawHorizon(deps, 'long'), null);
      await store.retention.set('long', { messageRetentionDays: null });
      assert.equal(await rawHorizon(deps, 'long'), Math.floor((now - 365 * dayMs) / 1000));
      await assert.rejects(rawHorizon(deps, 'ghost'), { code: 'NOT_FOUND' });
    });

    test('dead letters leave after DEAD_LETTER_RETENTION_DAYS, by arrival', async () => {
      const deadLetter = (receivedAt: number) => ({
        organizationId: 'short',
        receivedAt,
        source: 'thingdesk/short/up/GW',
        client: 'gw',
        reason: `test ${receivedAt}`,
        payload: '{}',
      });
      await commit([], [deadLetter(now - 31 * dayMs), deadLetter(now - 29 * dayMs), deadLetter(now)]);
      const report = await sweeper.sweep();
      assert.equal(report!.deadLetters, 1);
      const left = await database.db.selectFrom('dead_letters').select('received_at').orderBy('received_at').execute();
      assert.deepEqual(
        left.map((row) => row.received_at),
        [now - 29 * dayMs, now],
      );
    });

    test('command history leaves with the raw messages of its organization', async () => {
      await store.retention.set('short', { messageRetentionDays: 30 });
      for (const [organization, timestamp] of [
        ['short', now - 40 * dayMs],
        ['short', now - 20 * dayMs],
        ['long', now - 40 * dayMs],
      ] as const) {
        const request = await database.db
          .insertInto('command_requests')
          .values({ organization_id: organization, tuid: 'C-1', timestamp, responsible: 'test' })
          .returning('id')
          .executeTakeFirstOrThrow();
        await database.db
          .insertInto('command_items')
          .values({
            request_id: request.id,
            position: 0,
            tuid: 'C-1',
            transaction_id: 1,
            body: '{}',
            status: 'sent',
            response: null,
            responded_at: null,
          })
          .execute();
      }
      assert.equal((await sweeper.sweep())!.commandHistory, 1);
      const left = await database.db.selectFrom('command_requests').select(['organization_id', 'timestamp']).orderBy('timestamp').execute();
      assert.deepEqual(left, [
        { organization_id: 'long', timestamp: now - 40 * dayMs },
        { organization_id: 'short', timestamp: now - 20 * dayMs },
      ]);
      assert.equal((await database.db.selectFrom('command_items').select('request_id').execute()).length, 2);
    });

    test('de-duplication: a redelivery seconds later, one across a partition boundary, repeats within a batch', async () => {
      const boundary = messagePartitionStart(now);
      if (database.dialect === 'postgres') await createMessagePartitions(database.db, boundary - messagePartitionWidthMs, now);
      const first = await commit([record('long', 'D-1', 100, now - 5000)], []);
      assert.equal(first.stored.length, 1);
      const again = await commit([record('long', 'D-1', 100, now)], []);
      assert.deepEqual([again.stored.length, again.duplicates], [0, 1], 'a redelivery seconds later');

      await commit([record('long', 'D-2', 200, boundary - 1000)], []);
      const across = await commit([record('long', 'D-2', 200, boundary + 1000)], []);
      assert.deepEqual([across.stored.length, across.duplicates], [0, 1], 'a redelivery in the next partition');

      const repeated = await commit(
        [record('long', 'D-3', 300, now), record('long', 'D-3', 300, now), record('long', 'D-3', 301, now)],
        [],
      );
      assert.deepEqual([repeated.stored.length, repeated.duplicates], [2, 1], 'a repeat within one batch');
      // The same time and id with another content is another message.
      const distinct = await commit([record('long', 'D-3', 300, now, { temp: 21 })], []);
      assert.equal(distinct.stored.length, 1);
      assert.deepEqual(await tuidsOf('long'), ['D-1', 'D-2', 'D-3', 'D-3', 'D-3']);
    });

    test("a thing's messages stay newest first by tsmTs when they arrived in different weeks (partitions)", async () => {
      const week = messagePartitionWidthMs;
      if (database.dialect === 'postgres') await createMessagePartitions(database.db, now - 3 * week, now);
      // Arrival order is the reverse of device time: a gateway replaying its backlog after a newer report.
      await commit([record('long', 'P-1', 300, now - 2 * week)], []);
      await commit([record('long', 'P-1', 200, now - week)], []);
      await commit([record('long', 'P-1', 100, now)], []);
      const listed = await store.messages.listJson({ tuid: 'P-1', limit: 10 });
      assert.deepEqual(
        listed.map((body) => (JSON.parse(body) as { tsmTs: number }).tsmTs),
        [300, 200, 100],
      );
      const ranged = await store.messages.listJson({ tuid: 'P-1', from: 150, to: 250, limit: 10 });
      assert.equal(ranged.length, 1);
    });

    if (target.name === 'postgres') {
      test('de-duplication: two instances committing the same messages at once store each once', async () => {
        const { database: second } = await openMigratedStore(await currentUrl(database));
        const otherCommit = ingestBatchWriter(second);
        try {
          for (let round = 0; round < 20; round++) {
            // New things in some rounds (both claim), known ones in others.
            const batch = () => [
              record('long', `RACE-${round % 4}`, 1000 + round, Date.now()),
              record('long', `RACE-X`, 1000 + round, Date.now()),
            ];
            const [a, b] = await Promise.all([commit(batch(), []), otherCommit(batch(), [])]);
            assert.equal(a.stored.length + b.stored.length, 2, `round ${round}: each message stored by one instance`);
            assert.equal(a.duplicates + b.duplicates, 2, `round ${round}: and skipped by the other`);
          }
          const { rows } = await sql<{ n: number }>`select count(*)::int as n from messages where tuid like 'RACE-%'`.execute(database.db);
          assert.equal(rows[0]!.n, 40);
        } finally {
          await otherCommit.close();
          await second.close();
        }
      });

      test('one instance sweeps at a time (lease); a redelivery after the redelivery window is stored again', async () => {
        const other = new RetentionSweeper({
          store,
          clock,
          expiry: retentionExpiry(database, commit),
          defaults,
          intervalS: 3600,
          instanceId: 'other-instance',
          logger: createLogger('silent'),
        });
        assert.ok(await sweeper.sweep(), 'the first takes the lease');
        assert.equal(await other.sweep(), undefined, 'the other finds it held');
        await sweeper.stop();
        assert.ok(await other.sweep(), 'released at stop, taken by the other');

        const week = messagePartitionWidthMs;
        await createMessagePartitions(database.db, now - 2 * week, now);
        await commit([record('long', 'LATE-1', 1, now - 8 * dayMs)], []);
        const late = await commit([record('long', 'LATE-1', 1, now)], []);
        assert.equal(late.stored.length, 1, 'beyond the 7-day window the copy is not looked for (docs/decisions.md)');
      });

      test('partitions: created ahead of the clock, a default partition, expired weeks dropped whole', async () => {
        const week = messagePartitionWidthMs;
        const names = async () => (await listMessagePartitions(database.db)).map((p) => p.start);
        clock.set(now + 3 * week);
        const report = await sweeper.sweep();
        assert.ok(report!.partitionsCreated >= 1, 'the weeks ahead of the moved clock');
        const starts = await names();
        for (let start = messagePartitionStart(now + 3 * week); start <= now + 5 * week; start += week) assert.ok(starts.includes(start));
        const { rows } = await sql<{ n: number }>`
          select count(*)::int as n from pg_inherits i join pg_class c on c.oid = i.inhrelid
          where i.inhparent = 'messages'::regclass and c.relname = 'messages_default'`.execute(database.db);
        assert.equal(rows[0]!.n, 1);

        // A year and more later every week before the longest retention (365 days) is gone.
        clock.set(now + 400 * dayMs);
        const later = await sweeper.sweep();
        assert.ok(later!.partitionsDropped >= 2);
        const horizon = now + 400 * dayMs - 365 * dayMs;
        for (const start of await names())
          assert.ok(start + week > horizon, `no week before the horizon is left (${new Date(start).toISOString()})`);
      });
    }

    if (target.name === 'sqlite') {
      test('SQLite: an ingest batch committed during a long sweep is answered before the sweep ends', async () => {
        const old = now - 400 * dayMs;
        for (let batch = 0; batch < 10; batch++)
          await commit(
            Array.from({ length: 2000 }, (_, i) => record('long', `OLD-${i % 50}`, batch * 2000 + i, old)),
            [],
          );
        let sweepDone = false;
        const sweeping = sweeper.sweep().then((report) => {
          sweepDone = true;
          return report;
        });
        const fresh = await commit([record('long', 'FRESH', 1, now)], []);
        assert.equal(fresh.stored.length, 1);
        assert.equal(sweepDone, false, 'the batch did not wait for the whole sweep');
        assert.equal((await sweeping)!.messages, 20_000);
        assert.deepEqual(await tuidsOf('long'), ['FRESH']);
      });

      test('SQLite: stopping the platform ends a long sweep after its current step', async () => {
        for (let batch = 0; batch < 10; batch++)
          await commit(
            Array.from({ length: 2000 }, (_, i) => record('long', `STOP-${i % 50}`, batch * 2000 + i, now - 400 * dayMs)),
            [],
          );
        const sweeping = sweeper.sweep();
        await sweeper.stop();
        const report = await sweeping;
        assert.ok(report!.messages < 20_000, `stopped early: ${report!.messages} removed`);
        const { rows } = await sql<{ n: number }>`select count(*) as n from messages`.execute(database.db);
        assert.equal(Number(rows[0]!.n), 20_000 - report!.messages);
      });

      test('SQLite: a new store returns freed space (incremental vacuum)', async () => {
        if (database.driver.dialect !== 'sqlite') return;
        const connection = database.driver.connection;
        assert.equal(connection.pragma('auto_vacuum', { simple: true }), 2, 'incremental');
        const big = 'x'.repeat(2000);
        for (let batch = 0; batch < 5; batch++)
          await commit(
            Array.from({ length: 1000 }, (_, i) => record('long', `BIG-${i % 10}`, batch * 1000 + i, now - 400 * dayMs, { note: big })),
            [],
          );
        const pages = () => connection.pragma('page_count', { simple: true }) as number;
        const before = pages();
        const report = await sweeper.sweep();
        assert.equal(report!.messages, 5000);
        assert.ok(report!.pagesReclaimed > 1000, `pages returned: ${report!.pagesReclaimed}`);
        assert.ok(pages() < before / 2, `file shrank from ${before} to ${pages()} pages`);
      });
    }
  });
}

describe('retention sweep on an in-memory SQLite store (main connection)', () => {
  test('expired messages leave, the others stay', async () => {
    const { database, store } = await openMigratedStore('file::memory:');
    const commit = ingestBatchWriter(database);
    try {
      const clock = new ManualClock(now);
      await createOrganization({ store, clock }, { name: 'Mem' });
      await commit([record('mem', 'M-OLD', 1, now - 400 * dayMs), record('mem', 'M-NEW', 2, now)], []);
      const sweeper = new RetentionSweeper({
        store,
        clock,
        expiry: retentionExpiry(database, commit),
        defaults,
        intervalS: 3600,
        instanceId: undefined,
        logger: createLogger('silent'),
      });
      assert.equal((await sweeper.sweep())!.messages, 1);
      assert.equal(await store.messages.count('M-OLD'), 0);
      assert.equal(await store.messages.count('M-NEW'), 1);
    } finally {
      await commit.close();
      await database.close();
    }
  });
});

/** The URL of an open PostgreSQL store (its schema on the search path), to open a second pool on it. */
async function currentUrl(database: Database): Promise<string> {
  const { rows } = await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db);
  const url = new URL(process.env.TEST_DATABASE_URL!);
  url.searchParams.set('options', `-c search_path=${rows[0]!.schema}`);
  return url.toString();
}
