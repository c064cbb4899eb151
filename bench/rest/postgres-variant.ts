/**
 * The PostgreSQL variant of bench:rest: when BENCH_DATABASE_URL names a PostgreSQL server, the same seed goes into
 * a scratch schema (unique to this run, reached through `?options=-c search_path=...`), the platform runs on it,
 * and the schema is dropped at the end, whatever happened. The server is shared, so nothing else is touched.
 */
import { randomBytes } from 'node:crypto';
import { openDatabase } from '../../src/store/database.js';
import { seedDatabase, type SeedShape, type SeedStats } from '../lib/seed-store.js';
import { withClient } from '../lib/postgres-client.js';

/** Why the variant cannot run, or undefined when it can. */
export function postgresSkipReason(): string | undefined {
  const url = process.env.BENCH_DATABASE_URL;
  if (!url) return 'BENCH_DATABASE_URL is not set (e.g. postgres://postgres@127.0.0.1:5432/postgres)';
  if (!/^postgres(ql)?:\/\//.test(url)) return 'BENCH_DATABASE_URL is not a postgres:// URL';
  return undefined;
}

export interface PostgresSeed {
  databaseUrl: string;
  schema: string;
  stats: SeedStats;
  /** Drops the scratch schema; safe to call twice. */
  cleanup(): Promise<void>;
}

/** Creates the scratch schema and seeds it; drops it again if seeding fails. */
export async function preparePostgresSeed(shape: SeedShape, log: (text: string) => void): Promise<PostgresSeed> {
  const base = process.env.BENCH_DATABASE_URL!;
  const schema = `bench_rest_${randomBytes(4).toString('hex')}`;
  await withClient(base, (client) => client.query(`create schema ${schema}`));
  let dropped = false;
  const cleanup = async () => {
    if (dropped) return;
    dropped = true;
    await withClient(base, (client) => client.query(`drop schema if exists ${schema} cascade`)).catch((error: unknown) =>
      log(`could not drop the scratch schema ${schema}: ${(error as Error).message}`),
    );
  };
  const scoped = new URL(base);
  scoped.searchParams.set('options', `-c search_path=${schema}`);
  try {
    const database = await openDatabase(scoped.toString());
    try {
      log(`seeding PostgreSQL scratch schema ${schema}`);
      const stats = await seedDatabase(database, shape, log);
      return { databaseUrl: scoped.toString(), schema, stats, cleanup };
    } finally {
      await database.close();
    }
  } catch (error) {
    await cleanup();
    throw error;
  }
}
