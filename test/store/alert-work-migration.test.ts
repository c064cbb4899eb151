/** Migration 0026 (alerts as work items): periods stored before it get their built-in severity, and nothing else. */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { sql } from 'kysely';
import { openDatabase } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { migrateBefore } from '../helpers/migrate-before.js';

after(cleanupStores);

for (const target of storeTargets) {
  describe(`migration 0026 on ${target.name}`, { skip: target.skip }, () => {
    test('existing periods: critical for gateway connection lost, warning for the others; unacknowledged, no incident', async () => {
      const database = await openDatabase(await target.createUrl());
      try {
        await migrateBefore(database, '0026');
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
