/**
 * The fleet of SPEC section 16's benchmarks (issue 38), seeded straight into a fresh store: BENCH_OPS_THINGS
 * (100,000) things behind BENCH_OPS_GATEWAYS (1,000) gateways and BENCH_OPS_PERIODS (1,000,000) alert periods over a
 * year (1 % open), as of `now`. Shared by operator-queries.ts (store and domain) and operator-pages.ts (the browser).
 */
import type { Insertable } from 'kysely';
import type { Database } from '../../src/store/database.js';
import type { AlertsTable } from '../../src/store/schema.js';

export const things = Number(process.env.BENCH_OPS_THINGS ?? 100_000);
export const gateways = Number(process.env.BENCH_OPS_GATEWAYS ?? 1000);
export const periods = Number(process.env.BENCH_OPS_PERIODS ?? 1_000_000);
export const now = Date.UTC(2026, 2, 30, 12, 0, 0);
export const tuidOf = (i: number) => `T${String(i).padStart(6, '0')}`;
export const gatewayOf = (i: number) => `GW-${String(i % gateways).padStart(4, '0')}`;

export async function seedOperatorFleet(database: Database): Promise<void> {
  const { db } = database;
  await db.insertInto('organizations').values({ id: 'bench', name: 'Bench', name_key: 'bench', created_at: now }).execute();
  const chunk = 500;
  for (let start = 0; start < things; start += chunk) {
    const rows = [];
    for (let i = start; i < Math.min(things, start + chunk); i++) {
      rows.push({
        tuid: tuidOf(i),
        organization_id: 'bench',
        group_id: null,
        installation_status: 'installed',
        created_at: now,
        last_ts: now / 1000,
        last_gateway_tuid: gatewayOf(i),
        battery_level: (i * 7) % 101,
        battery_ts: now / 1000,
        version: '1.0.0',
        version_ts: now / 1000,
        lat: null,
        lon: null,
        location_ts: null,
        last_heard_at: now - ((i * 7919) % 86_400_000),
        last_heard_gateway_tuid: gatewayOf(i),
      });
    }
    await db.insertInto('things').values(rows).execute();
  }
  // Periods spread over a year, one in a hundred still open (open ones never two of a type on a thing).
  const types = ['gateway connection lost', 'device connection lost', 'battery low'];
  for (let start = 0; start < periods; start += chunk) {
    const rows: Insertable<AlertsTable>[] = [];
    for (let p = start; p < Math.min(periods, start + chunk); p++) {
      const thing = p % things;
      const open = p % 100 === 0 && p < things * 3;
      const type = types[open ? Math.floor(p / things) % 3 : p % 3]!;
      const openedAt = now - ((p * 104_729) % (365 * 86_400_000));
      rows.push({
        organization_id: 'bench',
        tuid: tuidOf(thing),
        alert_type: type,
        opened_at: openedAt,
        closed_at: open ? null : openedAt + 3_600_000,
        gateway_tuid: gatewayOf(thing),
        severity: type === 'gateway connection lost' ? 'critical' : 'warning',
        group_id: null,
        incident_id: type === 'gateway connection lost' ? `gateway:${gatewayOf(thing)}:${openedAt}` : null,
      });
    }
    await db.insertInto('alerts').values(rows).execute();
  }
}
