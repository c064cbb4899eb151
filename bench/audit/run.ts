/**
 * The audit log's costs (issue 37), on the domain functions the transports call (no HTTP), per store: SQLite always,
 * PostgreSQL too when BENCH_DATABASE_URL is set (a scratch schema, dropped afterwards).
 *
 * 1. Mutation latency (installation status, group assignment) with recording against without (the same domain
 *    calls over a store whose `transaction` just runs the work and whose `audit.append` does nothing): p50 and p99,
 *    medians of BENCH_RUNS (3) runs of BENCH_MUTATIONS (2,000) calls each.
 * 2. `audit verify` of BENCH_AUDIT_ENTRIES (1,000,000) entries seeded straight into the store (chained as the
 *    recorder chains them).
 * 3. The log filtered by target (what `GET /audit?target_type=thing&target_id=...` runs) at that size: p99 of 1,000.
 *
 *   npm run bench:audit
 *   BENCH_AUDIT_ENTRIES=100000 BENCH_MUTATIONS=500 npm run bench:audit
 */
import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { entryHash } from '../../src/domain/audit/audit-chain.js';
import { listAuditEntries, verifyAuditChain } from '../../src/domain/audit/audit-service.js';
import type { AuditEntry } from '../../src/domain/audit/audit-types.js';
import type { Principal } from '../../src/domain/auth/principal.js';
import { systemClock } from '../../src/domain/clock.js';
import { assignThingToGroup } from '../../src/domain/groups/group-membership.js';
import { setInstallationStatus } from '../../src/domain/installations/installation-service.js';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore, type Store } from '../../src/store/store.js';
import { withClient } from '../lib/postgres-client.js';
import { unrecorded } from './unrecorded-store.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const mutations = Number(process.env.BENCH_MUTATIONS ?? 2_000);
const entries = Number(process.env.BENCH_AUDIT_ENTRIES ?? 1_000_000);
const principal: Principal = { kind: 'client', organizationId: 'bench', clientId: 'bench-client', responsible: 'bench-client' };

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const median = (values: number[]) => quantile(values, 0.5);

async function mutationLatency(store: Store): Promise<{ p50: number; p99: number }[]> {
  const deps = { store, clock: systemClock, reservedTuids: new Set<string>() };
  const statuses = ['installed', 'uninstalled'] as const;
  const groups = ['g-a', 'g-b'] as const;
  const times: number[] = [];
  for (let i = 0; i < mutations; i++) {
    const tuid = `B-${i % 100}`;
    const started = performance.now();
    if (i % 2 === 0) await setInstallationStatus(deps, principal, { tuid, status: statuses[Math.floor(i / 200) % 2] });
    else await assignThingToGroup(deps, principal, { tuid, groupId: groups[Math.floor(i / 200) % 2] });
    times.push(performance.now() - started);
  }
  return [{ p50: quantile(times, 0.5), p99: quantile(times, 0.99) }];
}

async function seedEntries(database: Database, count: number): Promise<void> {
  const { db } = database;
  let previous = '';
  const batch = 1000;
  for (let from = 1; from <= count; from += batch) {
    const rows = [];
    for (let id = from; id < Math.min(from + batch, count + 1); id++) {
      const entry: Omit<AuditEntry, 'hash'> = {
        id,
        at: Date.UTC(2026, 0, 1) + id * 1000,
        organizationId: 'seeded',
        actor: { type: 'api_client', id: 'c', label: 'c' },
        via: 'rest',
        requestId: null,
        address: '127.0.0.1',
        action: 'thing.set_installation_status',
        target: { type: 'thing', id: `T-${id % 10_000}` },
        changes: { status: { from: 'installed', to: 'uninstalled' } },
        outcome: 'success',
      };
      const hash = entryHash(previous, entry);
      previous = hash;
      rows.push({
        organization_id: 'seeded',
        id,
        at: entry.at,
        actor_type: 'api_client',
        actor_id: 'c',
        actor_label: 'c',
        via: 'rest',
        request_id: null,
        address: '127.0.0.1',
        action: entry.action,
        target_type: 'thing',
        target_id: entry.target.id,
        changes: JSON.stringify(entry.changes),
        outcome: 'success',
        hash,
      });
    }
    await db.insertInto('audit_entries').values(rows).execute();
  }
  await db
    .insertInto('audit_heads')
    .values({ organization_id: 'seeded', last_id: count, last_hash: previous, anchor_id: 0, anchor_hash: '' })
    .execute();
}

async function benchStore(name: string, database: Database): Promise<void> {
  await migrateToLatest(database);
  const store = createStore(database);
  await store.organizations.create({ id: 'bench', name: 'Bench', createdAt: Date.now() });
  for (const groupId of ['g-a', 'g-b'])
    await store.groups.create({ organizationId: 'bench', groupId, description: null, createdAt: Date.now() });
  for (let i = 0; i < 100; i++)
    await setInstallationStatus({ store, clock: systemClock, reservedTuids: new Set() }, principal, { tuid: `B-${i}`, status: 'new' });
  const withAudit: { p50: number; p99: number }[] = [];
  const without: { p50: number; p99: number }[] = [];
  for (let run = 0; run < runs; run++) {
    without.push(...(await mutationLatency(unrecorded(store))));
    withAudit.push(...(await mutationLatency(store)));
  }
  const row = (label: string, figures: { p50: number; p99: number }[]) =>
    `  ${label.padEnd(22)} p50 ${median(figures.map((f) => f.p50)).toFixed(3)} ms   p99 ${median(figures.map((f) => f.p99)).toFixed(3)} ms`;
  console.log(`${name}: mutation latency, ${mutations} calls (installation status and group assignment alternating), medians of ${runs}`);
  console.log(row('without recording', without));
  console.log(row('with recording', withAudit));

  const seedStart = performance.now();
  await seedEntries(database, entries);
  console.log(`${name}: seeded ${entries} chained entries in ${((performance.now() - seedStart) / 1000).toFixed(1)} s`);
  const verifyTimes: number[] = [];
  const verifyCpu: number[] = [];
  for (let run = 0; run < runs; run++) {
    const started = performance.now();
    const cpu = process.cpuUsage();
    const result = await verifyAuditChain({ store }, 'seeded');
    verifyTimes.push(performance.now() - started);
    const used = process.cpuUsage(cpu);
    verifyCpu.push((used.user + used.system) / 1000);
    if (!result.ok || result.checked !== entries) throw new Error(`verify failed: ${JSON.stringify(result)}`);
  }
  // The CPU time this process spent (all of it on SQLite; PostgreSQL's own work is not in it) says what the wall
  // time would be on a host with a core to spare.
  console.log(
    `${name}: audit verify of ${entries} entries: ${(median(verifyTimes) / 1000).toFixed(2)} s, ` +
      `${(median(verifyCpu) / 1000).toFixed(2)} s of this process's CPU (medians of ${runs})`,
  );
  const reader: Principal = { kind: 'client', organizationId: 'seeded', clientId: 'c', responsible: 'c' };
  const p50s: number[] = [];
  const p99s: number[] = [];
  for (let run = 0; run < runs; run++) {
    const times: number[] = [];
    for (let i = 0; i < 1000; i++) {
      const started = performance.now();
      await listAuditEntries({ store }, reader, { targetType: 'thing', targetId: `T-${(i * 7919) % 10_000}`, limit: 100 });
      times.push(performance.now() - started);
    }
    p50s.push(quantile(times, 0.5));
    p99s.push(quantile(times, 0.99));
  }
  console.log(
    `${name}: the log by target (100 newest) at ${entries} entries: p50 ${median(p50s).toFixed(2)} ms   p99 ${median(p99s).toFixed(2)} ms (median of ${runs})`,
  );
  // The figures mean little on a host busy with other work: say how busy it was.
  console.log(
    `${name}: host load average ${loadavg()
      .map((l) => l.toFixed(1))
      .join(' ')} on ${availableParallelism()} cores`,
  );
}

const dir = mkdtempSync(join(tmpdir(), 'bench-audit-'));
try {
  const sqlite = await openDatabase(`file:${join(dir, 'audit.db')}`, { readerThreads: 0 });
  try {
    await benchStore('sqlite', sqlite);
  } finally {
    await sqlite.close();
  }
  const base = process.env.BENCH_DATABASE_URL;
  if (base) {
    const schema = `bench_audit_${randomBytes(4).toString('hex')}`;
    await withClient(base, (client) => client.query(`create schema ${schema}`));
    try {
      const url = new URL(base);
      url.searchParams.set('options', `-c search_path=${schema}`);
      const postgres = await openDatabase(url.toString());
      try {
        await benchStore('postgres', postgres);
      } finally {
        await postgres.close();
      }
    } finally {
      await withClient(base, (client) => client.query(`drop schema ${schema} cascade`));
    }
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
