import { randomBytes } from 'node:crypto';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { withClient } from './postgres-client.js';

/**
 * Runs `measure` on a fresh SQLite file, then on a scratch schema of BENCH_DATABASE_URL's PostgreSQL when it is set
 * (said on stderr when it is not), removing both afterwards whatever happens. `name` names the file and the schema.
 */
export async function onEachBenchStore(name: string, measure: (store: 'sqlite' | 'postgres', url: string) => Promise<void>): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), `thingdesk-${name}-bench-`));
  try {
    await measure('sqlite', `file:${join(dir, `${name}.db`)}`);
    const base = process.env.BENCH_DATABASE_URL;
    if (!base) {
      process.stderr.write('bench: PostgreSQL skipped: BENCH_DATABASE_URL is not set\n');
      return;
    }
    const schema = `${name}_bench_${randomBytes(4).toString('hex')}`;
    await withClient(base, (client) => client.query(`create schema ${schema}`));
    try {
      const url = new URL(base);
      url.searchParams.set('options', `-c search_path=${schema}`);
      await measure('postgres', url.toString());
    } finally {
      await withClient(base, (client) => client.query(`drop schema if exists ${schema} cascade`));
    }
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}
