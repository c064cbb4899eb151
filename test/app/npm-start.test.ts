import assert from 'node:assert/strict';
import { spawn, spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, test } from 'node:test';
import { cleanupStores, createSqliteUrl } from '../helpers/databases.js';
import { freePort } from '../helpers/platform-process.js';
import { startTestApp } from '../helpers/test-app.js';

after(cleanupStores);

const root = fileURLToPath(new URL('../..', import.meta.url));
// An edited checkout would make `npm start` build, which this test must not do while others serve dist/studio.
const stale = spawnSync(process.execPath, ['scripts/build-changed.mjs', '--check'], { cwd: root }).status !== 0;

test(
  '`npm start` on an unchanged checkout builds nothing and prints nothing but its own log lines, then serves',
  { skip: stale && 'the checkout changed since its last build (run `npm run build`): npm start would build' },
  async () => {
    const databaseUrl = createSqliteUrl();
    await (await startTestApp({ DATABASE_URL: databaseUrl })).stop();
    const [port, mqttPort] = [await freePort(), await freePort()];
    const child = spawn('npm', ['start'], {
      cwd: root,
      env: {
        ...process.env,
        DATABASE_URL: databaseUrl,
        PORT: String(port),
        MQTT_PORT: String(mqttPort),
        HOST: '127.0.0.1',
        LOG_LEVEL: 'info',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk) => (stdout += chunk));
    child.stderr!.on('data', (chunk) => (stderr += chunk));
    try {
      const deadline = Date.now() + 60_000;
      let status = 0;
      while (status !== 200) {
        assert.ok(Date.now() < deadline && child.exitCode === null, `npm start serves within 60 s:\n${stdout}${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 50));
        status = await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (response) => response.status,
          () => 0,
        );
      }
    } finally {
      process.kill(-child.pid!, 'SIGTERM');
      await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
    }
    // npm's own "> thingdesk@… start" lines aside, stdout is the platform's JSON log; stderr is empty.
    const lines = stdout.split('\n').filter((line) => line.trim() !== '' && !line.startsWith('> '));
    const notLog = lines.filter((line) => !line.startsWith('{'));
    assert.deepEqual(notLog, [], 'only JSON log lines on stdout');
    assert.ok(
      lines.some((line) => line.includes('thingdesk listening')),
      'the platform said it listens',
    );
    assert.equal(stderr.trim(), '', 'nothing on stderr');
  },
);
