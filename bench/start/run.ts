/**
 * `npm start` on an unchanged checkout, from the command to `/readyz` 200, on an existing SQLite store (the
 * restart an operator or a crash makes): three runs and their median. The checkout must be built (`npm run build`);
 * a stale one is refused rather than timed, since its first run would time a compiler.
 */
import { spawn, spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '../../test/helpers/platform-process.js';

const root = fileURLToPath(new URL('../..', import.meta.url));
const runs = Number(process.env.BENCH_RUNS ?? 3);

if (spawnSync(process.execPath, ['scripts/build-changed.mjs', '--check'], { cwd: root }).status !== 0) {
  process.stderr.write('bench:start: the checkout changed since its last build; run `npm run build` first\n');
  process.exit(1);
}

const workDir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-start-'));
const env = {
  ...process.env,
  DATABASE_URL: `file:${join(workDir, 'thingdesk.db')}`,
  HOST: '127.0.0.1',
  LOG_LEVEL: 'warn',
  BOOTSTRAP_PASSWORD: 'bench-start-password',
};

/** Runs `npm start` until /readyz answers 200; the milliseconds that took. */
async function timeStart(): Promise<number> {
  const [port, mqttPort] = [await freePort(), await freePort()];
  const startedAt = performance.now();
  const child = spawn('npm', ['start', '--silent'], {
    cwd: root,
    env: { ...env, PORT: String(port), MQTT_PORT: String(mqttPort) },
    stdio: 'ignore',
    detached: true,
  });
  try {
    for (;;) {
      const status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
        (response) => response.status,
        () => 0,
      );
      if (status === 200) return performance.now() - startedAt;
      if (child.exitCode !== null) throw new Error(`npm start exited with ${child.exitCode}`);
      if (performance.now() - startedAt > 120_000) throw new Error('not ready within 120 s');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  } finally {
    // npm runs a shell that runs node: the whole process group goes.
    process.kill(-child.pid!, 'SIGTERM');
    await new Promise((resolve) => child.once('exit', resolve));
  }
}

try {
  const first = await timeStart(); // creates and bootstraps the store, which is not what a restart does
  const times: number[] = [];
  for (let run = 0; run < runs; run++) times.push(await timeStart());
  const sorted = [...times].sort((a, b) => a - b);
  const median = sorted[Math.floor(sorted.length / 2)]!;
  process.stdout.write(
    [
      `npm start to /readyz 200 on an unchanged checkout, Node ${process.versions.node}, load average ${(await import('node:os')).loadavg()[0]!.toFixed(1)}`,
      `  first start (empty store, bootstrap): ${Math.round(first)} ms`,
      `  restarts on the existing store: ${times.map((ms) => Math.round(ms)).join(', ')} ms; median ${Math.round(median)} ms (target < 5000)`,
      '',
    ].join('\n'),
  );
} finally {
  rmSync(workDir, { recursive: true, force: true });
}
