/** Migration 0026 (alerts as work items): periods stored before it get their built-in severity, and nothing else. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { Migrator, sql } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { migrations } from '../../src/store/migrations/index.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`migration 0026 on ${target.name}`, { skip: target.skip }, () => {
    test('existing periods: critical for gateway connection lost, warning for the others; unacknowledged, no incident', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        const before = Object.fromEntries(Object.entries(migrations).filter(([name]) => name < '0026'));
        const schema =
          database.dialect === 'postgres'
            ? (await sql<{ schema: string }>`select current_schema() as schema`.execute(database.db)).rows[0]!.schema
            : undefined;
        const migrator = new Migrator({
          db: database.db,
          provider: { getMigrations: async () => before },
          migrationTableName: 'schema_migrations',
          migrationLockTableName: 'schema_migrations_lock',
          ...(schema && { migrationTableSchema: schema }),
        });
        assert.equal((await migrator.migrateToLatest()).error, undefined);
        for (const [tuid, type] of [
          ['M-1', 'gateway connection lost'],
          ['M-2', 'device connection lost'],
          ['M-3', 'battery low'],
        ]) {
          await sql`insert into alerts (organization_id, tuid, alert_type, opened_at, closed_at) values ('org', ${tuid}, ${type}, 1, null)`.execute(
            database.db,
          );
        }
        assert.ok((await migrateToLatest(database)).applied.includes('0026-alert-work-items'));
        const rows = await database.db
          .selectFrom('alerts')
          .select(['tuid', 'severity', 'incident_id', 'acknowledged_at', 'rule_id'])
          .orderBy('tuid')
          .execute();
        assert.deepEqual(rows, [
          { tuid: 'M-1', severity: 'critical', incident_id: null, acknowledged_at: null, rule_id: null },
          { tuid: 'M-2', severity: 'warning', incident_id: null, acknowledged_at: null, rule_id: null },
          { tuid: 'M-3', severity: 'warning', incident_id: null, acknowledged_at: null, rule_id: null },
        ]);
      } finally {
        await database.close();
      }
    });
  });
}
