/**
 * The studio benchmark's store: the bench organization with a Manager, `things` things with one battery report each
 * (the things list's 100,000), and one thing with a month of one 12100 message a minute (the month chart), written
 * through the platform's batch writer so summaries and rollups are what live ingest makes.
 */
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization, createUser } from '../../src/domain/identity/identity-service.js';
import type { UplinkRecord } from '../../src/domain/messages/message-types.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import type { Database } from '../../src/store/database.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore } from '../../src/store/store.js';
import { seedCredentials } from '../lib/seed-store.js';

export const monthTuid = 'MONTH-0001';

export async function seedStudioStore(database: Database, shape: { things: number; monthMessages: number }): Promise<{ monthTo: number }> {
  await migrateToLatest(database);
  const deps = { store: createStore(database), clock: systemClock };
  const organization = await createOrganization(deps, { name: seedCredentials.organizationName, id: seedCredentials.organizationId });
  await createUser(deps, {
    organizationId: organization.id,
    email: seedCredentials.email,
    password: seedCredentials.password,
    role: 'Manager',
  });
  const commit = ingestBatchWriter(database);
  const now = Math.floor(Date.now() / 1000);
  let pending: Record<string, unknown>[] = [];
  let records: UplinkRecord[] = [];
  const parsePending = async () => {
    const parsed = parseUplink(JSON.stringify(pending), {
      organizationId: organization.id,
      gatewayTuid: 'GW-BENCH',
      source: 'bench-seed',
      client: 'bench-seed',
      receivedAt: Date.now(),
    });
    pending = [];
    records.push(...parsed.records);
    if (records.length >= 10_000) {
      await commit(records, []);
      records = [];
    }
  };
  const add = async (message: Record<string, unknown>) => {
    pending.push(message);
    if (pending.length >= 1000) await parsePending();
  };
  try {
    for (let thing = 0; thing < shape.things; thing++) {
      const tuid = `T${String(thing).padStart(6, '0')}`;
      await add({ tsmId: 1110, tsmTs: now - (thing % 3600), tsmTuid: tuid, tsmGw: 'GW-BENCH', batl: thing % 101 });
    }
    const monthTo = now - (now % 60);
    for (let i = shape.monthMessages - 1; i >= 0; i--) {
      const tsmTs = monthTo - i * 60;
      const day = (2 * Math.PI * (tsmTs % 86_400)) / 86_400;
      await add({
        tsmId: 12100,
        tsmTs,
        tsmTuid: monthTuid,
        tsmGw: 'GW-BENCH',
        temp: Math.round(200 + 60 * Math.sin(day)) / 10,
        humd: Math.round(450 + 200 * Math.cos(day)) / 10,
        airp: 101_325,
        lght: Math.max(0, Math.round(800 * Math.sin(day - Math.PI / 2))),
      });
    }
    if (pending.length > 0) await parsePending();
    if (records.length > 0) await commit(records, []);
    return { monthTo };
  } finally {
    await commit.close();
  }
}
