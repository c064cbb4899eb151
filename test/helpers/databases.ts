import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { openDatabase, type Database } from '../../src/store/database.js';
import { migrateToLatest } from '../../src/store/migrate.js';
import { createStore, type Store } from '../../src/store/store.js';

/**
 * The stores every store test runs against: SQLite always, PostgreSQL when TEST_DATABASE_URL is set. Each
 * `createUrl()` gives a fresh, empty store (a temporary SQLite file, or a new PostgreSQL schema selected through
 * the connection's search_path) and registers its removal in `cleanup()`.
 */
export interface StoreTarget {
  name: 'sqlite' | 'postgres';
  /** Why this target is skipped (shown by the test runner), or undefined when it runs. */
  skip: string | undefined;
  createUrl(): Promise<string>;
}

const cleanups: (() => Promise<void>)[] = [];

export const postgresSkipReason = process.env.TEST_DATABASE_URL
  ? undefined
  : 'PostgreSQL tests skipped: TEST_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/test)';

export const storeTargets: readonly StoreTarget[] = [
  { name: 'sqlite', skip: undefined, createUrl: async () => createSqliteUrl() },
  { name: 'postgres', skip: postgresSkipReason, createUrl: createPostgresUrl },
];

/**
 * The stores the studio's browser suites run on: SQLite, and PostgreSQL only with STUDIO_ON_POSTGRES=1. A browser
 * suite drives the console, which reads and writes through the API; the API and the store under it are tested on both
 * stores by their own suites, and a browser suite on PostgreSQL took as long again as on SQLite (CI runs the whole
 * suite twice, on two Node.js lines). The overview's figures, which fold the store's set-based SQL, stay on both.
 */
export const browserStoreTargets: readonly StoreTarget[] =
  process.env.STUDIO_ON_POSTGRES === '1'
    ? storeTargets
    : storeTargets.map((target) =>
        target.name === 'postgres' && !target.skip
          ? {
              ...target,
              skip: 'studio browser suites run on SQLite (the API is tested on PostgreSQL); STUDIO_ON_POSTGRES=1 runs them here',
            }
          : target,
      );

export function createSqliteUrl(): string {
  const dir = mkdtempSync(join(tmpdir(), 'thingdesk-test-'));
  cleanups.push(async () => rmSync(dir, { recursive: true, force: true }));
  return `file:${join(dir, 'thingdesk.db')}`;
}

export async function createPostgresUrl(): Promise<string> {
  const base = process.env.TEST_DATABASE_URL;
  if (!base) throw new Error(postgresSkipReason);
  const schema = `t_${randomBytes(6).toString('hex')}`;
  await withAdmin(base, (client) => client.query(`create schema ${schema}`));
  cleanups.push(() => withAdmin(base, (client) => client.query(`drop schema if exists ${schema} cascade`)).then(() => undefined));
  const url = new URL(base);
  url.searchParams.set('options', `-c search_path=${schema}`);
  return url.toString();
}

/** Removes every store created by this test file. Call from an `after` hook. */
export async function cleanupStores(): Promise<void> {
  for (const cleanup of cleanups.splice(0)) await cleanup().catch(() => undefined);
}

async function withAdmin<T>(url: string, work: (client: pg.Client) => Promise<T>): Promise<T> {
  const client = new pg.Client({ connectionString: url });
  await client.connect();
  try {
    return await work(client);
  } finally {
    await client.end();
  }
}

/** A fresh store at `url`, migrated to the newest schema, with its entity modules. Close `database` when done. */
export async function openMigratedStore(url: string): Promise<{ database: Database; store: Store }> {
  const database = await openDatabase(url);
  try {
    await migrateToLatest(database);
  } catch (error) {
    await database.close();
    throw error;
  }
  return { database, store: createStore(database) };
}
