import { createHash } from 'node:crypto';
import type Database from 'better-sqlite3';
import { SqliteBinding } from '../../src/store/sqlite-binding.js';

/** The tables that hold what users create and see; a rejected request must leave every one of them as it was. */
export const domainTables = [
  'organizations',
  'users',
  'api_clients',
  'mqtt_credentials',
  'things',
  'messages',
  'dead_letters',
  'groups',
  'installation_history',
  'command_requests',
  'command_items',
  'alerts',
] as const;

/** Row count and content hash per table, e.g. `{groups: "3:9f2c…"}`: equal snapshots mean equal tables. */
export type StoreSnapshot = Record<string, string>;

/**
 * Reads a test app's SQLite store through a second, read-only connection (WAL lets it read while the platform
 * writes), so a test can compare the store before and after a request without going through the code under test.
 */
export class StoreSnapshotter {
  private readonly db: Database.Database;

  constructor(
    databaseUrl: string,
    private readonly tables: readonly string[] = domainTables,
  ) {
    if (!databaseUrl.startsWith('file:')) throw new Error(`store snapshots need a SQLite store, got ${databaseUrl}`);
    this.db = new SqliteBinding(databaseUrl.slice('file:'.length), { readonly: true, fileMustExist: true });
  }

  /** Every table's rows, order-independent: each row as JSON, sorted, hashed. */
  take(): StoreSnapshot {
    const snapshot: StoreSnapshot = {};
    for (const table of this.tables) {
      const rows = this.db
        .prepare(`select * from "${table}"`)
        .all()
        .map((row) => JSON.stringify(row));
      rows.sort();
      snapshot[table] = `${rows.length}:${createHash('sha256').update(rows.join('\n')).digest('hex').slice(0, 16)}`;
    }
    return snapshot;
  }

  /** Rows of one table (for counting what a test caused). */
  count(table: string): number {
    return (this.db.prepare(`select count(*) as n from "${table}"`).get() as { n: number }).n;
  }

  close(): void {
    this.db.close();
  }
}

/** Takes snapshots until two in a row agree (the platform may still be finishing work started before the test). */
export async function settledSnapshot(snapshotter: StoreSnapshotter, pauseMs = 100, attempts = 50): Promise<StoreSnapshot> {
  let previous = snapshotter.take();
  for (let i = 0; i < attempts; i += 1) {
    await new Promise((resolve) => setTimeout(resolve, pauseMs));
    const next = snapshotter.take();
    if (JSON.stringify(next) === JSON.stringify(previous)) return next;
    previous = next;
  }
  throw new Error('the store kept changing: no settled snapshot');
}
