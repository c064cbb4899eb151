import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import pg from 'pg';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { migrateBefore } from '../helpers/migrate-before.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`migrations on ${target.name}`, { skip: target.skip }, () => {
    test('an empty store migrates to the newest schema, and a second run applies nothing', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        const first = await migrateToLatest(database);
        assert.deepEqual(first.applied, Object.keys(migrations));
        const second = await migrateToLatest(database);
        assert.deepEqual(second.applied, []);
        const tables = (await database.db.introspection.getTables()).map((t) => t.name);
        for (const table of ['organizations', 'users', 'api_clients', 'mqtt_credentials', 'signing_keys']) {
          assert.ok(tables.includes(table), `table ${table} exists`);
        }
      } finally {
        await database.close();
      }
    });

    test('concurrent migrations from two connections apply each migration once', async () => {
      const url = await target.createUrl();
      const [a, b] = await Promise.all([openDatabase(url), openDatabase(url)]);
      try {
        const [ra, rb] = await Promise.all([migrateToLatest(a), migrateToLatest(b)]);
        assert.deepEqual([...ra.applied, ...rb.applied].sort(), Object.keys(migrations).sort());
      } finally {
        await Promise.all([a.close(), b.close()]);
      }
    });

    test('0008 rewrites stored messages as served: deploymentGroupId appended once, the group or unassigned', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateBefore(database, '0008');
        await sql`insert into organizations (id, name, name_key, created_at) values ('org', 'Org', 'org', 1)`.execute(database.db);
        const row = (tuid: string, ts: number, group: string | null, body: string) =>
          sql`insert into messages (tuid, tsm_ts, tsm_id, fingerprint, organization_id, tsm_ev, gateway_tuid, group_id, received_at, body, problems)
              values (${tuid}, ${ts}, 1, ${`f${ts}`}, 'org', null, null, ${group}, 1, ${body}, null)`.execute(database.db);
        await row('M-1', 1, null, '{"tsmId":1,"tsmTs":1,"tsmTuid":"M-1"}');
        await row('M-1', 2, 'north', '{"tsmId":1,"tsmTs":2,"tsmTuid":"M-1","nested":{"a":[1,{}]}}');
        await row('M-1', 3, 'ÄÖ-"q"', '{"tsmId":1,"tsmTs":3,"tsmTuid":"M-1","text":"å"}');
        await row('M-1', 4, null, '{}');

        assert.deepEqual(
          (await migrateToLatest(database)).applied,
          Object.keys(migrations).filter((name) => name >= '0008'),
        );
        const bodies = await sql<{ tsm_ts: number; body: string }>`select tsm_ts, body from messages order by tsm_ts`.execute(database.db);
        assert.deepEqual(
          bodies.rows.map((r) => JSON.parse(r.body) as unknown),
          [
            { tsmId: 1, tsmTs: 1, tsmTuid: 'M-1', deploymentGroupId: 'unassigned' },
            { tsmId: 1, tsmTs: 2, tsmTuid: 'M-1', nested: { a: [1, {}] }, deploymentGroupId: 'north' },
            { tsmId: 1, tsmTs: 3, tsmTuid: 'M-1', text: 'å', deploymentGroupId: 'ÄÖ-"q"' },
            { deploymentGroupId: 'unassigned' },
          ],
        );
        assert.equal(
          bodies.rows[1]!.body,
          '{"tsmId":1,"tsmTs":2,"tsmTuid":"M-1","nested":{"a":[1,{}]},"deploymentGroupId":"north"}',
          'spliced, not re-serialized',
        );
      } finally {
        await database.close();
      }
    });

    test(
      'migrations succeed while other clients create and drop schemas in the same database (PostgreSQL)',
      { skip: target.name === 'postgres' ? undefined : 'only PostgreSQL shares a database among schemas' },
      async () => {
        const churnUrl = await target.createUrl();
        const churn = new pg.Client({ connectionString: churnUrl });
        await churn.connect();
        let churning = true;
        const churned = (async () => {
          for (let i = 0; churning; i++) {
            const schema = `churn_${process.pid}_${i}`;
            await churn.query(
              `create schema ${schema}; create table ${schema}.t (id serial primary key, v text); create table ${schema}.u (id bigserial primary key)`,
            );
            await churn.query(`drop schema ${schema} cascade`);
          }
        })();
        try {
          for (let round = 0; round < 6; round++) {
            const database = await openDatabase(await target.createUrl());
            try {
              assert.deepEqual((await migrateToLatest(database)).applied, Object.keys(migrations));
            } finally {
              await database.close();
            }
          }
        } finally {
          churning = false;
          await churned;
          await churn.end();
        }
      },
    );

    test('0018 puts existing things after their newest message and now, so rollups already stored are not counted again from raw', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateBefore(database, '0018');
        await sql`insert into organizations (id, name, name_key, created_at) values ('org', 'Org', 'org', 1)`.execute(database.db);
        const thing = (tuid: string, lastTs: number | null) =>
          sql`insert into things (tuid, organization_id, installation_status, created_at, last_ts) values (${tuid}, 'org', 'new', 1, ${lastTs})`.execute(
            database.db,
          );
        const now = Math.floor(Date.now() / 1000);
        await thing('PAST-1', 1_000_000);
        await thing('AHEAD-1', now + 10 * 86_400 + 1234);
        await thing('SILENT-1', null);
        await migrateToLatest(database);
        const rows = await sql<{
          tuid: string;
          rollup_watermark: number | string;
        }>`select tuid, rollup_watermark from things order by tuid`.execute(database.db);
        const watermark = Object.fromEntries(rows.rows.map((row) => [row.tuid, Number(row.rollup_watermark)]));
        const nextHour = (seconds: number) => Math.floor(seconds / 3600) * 3600 + 3600;
        assert.ok(watermark['PAST-1']! >= nextHour(now) - 3600 && watermark['PAST-1']! <= nextHour(now + 60), 'after now');
        assert.equal(watermark['AHEAD-1'], nextHour(now + 10 * 86_400 + 1234), 'after its newest message');
        assert.ok(watermark['SILENT-1']! > now);
        // A thing claimed after the migration starts at 0: all its rollups from raw.
        await thing('NEW-1', null);
        const [created] = (
          await sql<{ w: number | string }>`select rollup_watermark as w from things where tuid = 'NEW-1'`.execute(database.db)
        ).rows;
        assert.equal(Number(created?.w), 0);
      } finally {
        await database.close();
      }
    });

    test('0019 gives every compacted day an etag of its own', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateBefore(database, '0019');
        const figures = `1, 2, 1, 1, 1, 1, 1, 1, 1`;
        for (const dayStart of [0, 86_400])
          await sql`insert into thing_rollup_days (tuid, organization_id, tsm_id, field, day_start, hours, count, min, max, sum, first, first_ts, last, last_ts)
                    values ('D-1', 'org', 12100, 'temp', ${dayStart}, ${sql.raw(figures)})`.execute(database.db);
        await sql`insert into group_rollup_days (organization_id, group_id, tsm_id, field, day_start, hours, count, min, max, sum, first, first_ts, last, last_ts)
                  values ('org', 'unassigned', 12100, 'temp', 0, ${sql.raw(figures)})`.execute(database.db);
        await migrateToLatest(database);
        const etags = [
          ...(await sql<{ e: string | null }>`select hours_etag as e from thing_rollup_days`.execute(database.db)).rows,
          ...(await sql<{ e: string | null }>`select hours_etag as e from group_rollup_days`.execute(database.db)).rows,
        ].map((row) => row.e);
        assert.equal(etags.length, 3);
        assert.ok(
          etags.every((etag) => typeof etag === 'string' && etag.length === 32),
          JSON.stringify(etags),
        );
        assert.equal(new Set(etags).size, 3);
      } finally {
        await database.close();
      }
    });

    test('0009 leaves room on the pages of things for summary updates (PostgreSQL; nothing on SQLite)', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateToLatest(database);
        if (database.dialect === 'postgres') {
          const { rows } = await sql<{
            options: string[] | null;
          }>`select reloptions as options from pg_class where oid = 'things'::regclass`.execute(database.db);
          assert.deepEqual(rows[0]!.options, ['fillfactor=70']);
        } else {
          const { rows } = await sql<{ name: string }>`select name from schema_migrations where name = '0009-things-fillfactor'`.execute(
            database.db,
          );
          assert.equal(rows.length, 1, 'recorded as applied on SQLite too, so both stores share one migration history');
        }
      } finally {
        await database.close();
      }
    });
  });
}
