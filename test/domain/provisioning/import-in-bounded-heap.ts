// Run by import-heap.test.ts in a process of its own, under a heap limit it sets: applies an import of argv[2] rows
// (names, groups created, installed, two labels each) to a fresh SQLite file, as bench:provisioning does, and prints
// the plan's counts and how many rows it lists. A heap that the import outgrows ends the process (V8's out of memory).
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { systemClock } from '../../../src/domain/clock.js';
import { importThings } from '../../../src/domain/provisioning/thing-import.js';
import { openDatabase } from '../../../src/store/database.js';
import { migrateToLatest } from '../../../src/store/migrate.js';
import { createStore } from '../../../src/store/store.js';

const rows = Number(process.argv[2]);
const dir = mkdtempSync(join(tmpdir(), 'thingdesk-import-heap-'));
const database = await openDatabase(`file:${join(dir, 'import.db')}`);
try {
  await migrateToLatest(database);
  const deps = { store: createStore(database), clock: systemClock, reservedTuids: new Set<string>() };
  await database.db.insertInto('organizations').values({ id: 'org', name: 'org', name_key: 'org', created_at: 0 }).execute();
  let text = 'tuid,name,group_id,installation_status,label.site,label.room\r\n';
  for (let i = 0; i < rows; i += 1)
    text += `T-${String(i).padStart(6, '0')},"Sensor ${i}, hall",g-${i % 20},installed,site-${i % 100},r-${i % 37}\r\n`;
  const body = Buffer.from(text);
  text = '';
  const chunks = Array.from({ length: Math.ceil(body.length / 65536) }, (_, i) => body.subarray(i * 65536, (i + 1) * 65536));
  const principal = { kind: 'client' as const, organizationId: 'org', clientId: 'importer', responsible: 'importer' };
  const plan = await importThings(deps, principal, { format: 'csv', createGroups: true, onlyChanged: true, dryRun: false, body: chunks });
  process.stdout.write(JSON.stringify({ counts: plan.counts, listed: plan.rows.length }));
} finally {
  await database.close();
  rmSync(dir, { recursive: true, force: true });
}
