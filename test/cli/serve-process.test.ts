import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';

after(cleanupStores);

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

describe('thingdesk serve as a process', () => {
  test('starts on embedded defaults, prints the bootstrap credentials, answers /healthz and exits 0 on SIGTERM', async (t) => {
    const databaseUrl = createSqliteUrl();
    const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve'], {
      env: { ...process.env, PORT: '0', HOST: '127.0.0.1', MQTT_PORT: '0', DATABASE_URL: databaseUrl, LOG_LEVEL: 'info' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.on('data', (chunk) => (output += chunk));
    child.stderr.on('data', (chunk) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
    // A failed check must not leave the server running: its pipes would keep this file's process, and the run, alive.
    t.after(() => void (child.exitCode === null && child.signalCode === null && child.kill('SIGKILL')));

    const port = await waitFor(
      () => /"httpPort":(\d+)/.exec(output)?.[1],
      90_000, // tsx compiles the tree first: slow on a busy host, which is not a failure
      () => output,
    );
    assert.match(output, /manager login +admin@thingdesk\.local \/ \S{20,}/);
    assert.match(output, /API client +client-[0-9a-f]{12} \/ \S{40,}/);
    const health = await fetch(`http://127.0.0.1:${port}/healthz`);
    assert.equal(health.status, 200);

    child.kill('SIGTERM');
    assert.equal(await exited, 0, output);
    assert.match(output, /"msg":"stopped"/);
    // Closing the last connection checkpoints the WAL into the database file and removes it.
    assert.equal(existsSync(`${databaseUrl.slice('file:'.length)}-wal`), false);
  });
});

async function waitFor<T>(probe: () => T | undefined, timeoutMs: number, describe: () => string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  while (Date.now() < deadline) {
    const value = probe();
    if (value !== undefined) return value;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`timed out; output so far:\n${describe()}`);
}
