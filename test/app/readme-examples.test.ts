/**
 * README's GraphQL examples, taken from README by their `<!-- readme-example: NAME -->` markers and run as they are
 * against a real server (only the address and the password are put in), so they cannot rot.
 */
import assert from 'node:assert/strict';
import { execFile, spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { publishUplinks } from '../helpers/uplinks.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const readme = readFileSync(join(root, 'README.md'), 'utf8');
const password = 'readme-example-password';

/** The code block that follows `<!-- readme-example: NAME ... -->` in README. */
function readmeExample(text: string, name: string): string {
  const match = new RegExp(`<!-- readme-example: ${name}\\b[^>]*-->\\n\`\`\`\\w+\\n([\\s\\S]*?)\\n\`\`\``).exec(text);
  if (!match) throw new Error(`README has no example marked readme-example: ${name}`);
  return match[1]!;
}

describe("README's GraphQL examples against a running platform", () => {
  let server: TestApp;
  let scratch: string;
  before(async () => {
    // The defaults README's examples assume: organization thingdesk (id thingdesk-org), the default Manager e-mail.
    server = await startTestApp({ BOOTSTRAP_ORG: 'thingdesk', BOOTSTRAP_EMAIL: 'admin@thingdesk.local', BOOTSTRAP_PASSWORD: password });
    scratch = mkdtempSync(join(tmpdir(), 'thingdesk-readme-'));
    // The script imports the project's packages, as it does when saved in the project directory.
    symlinkSync(join(root, 'node_modules'), join(scratch, 'node_modules'));
    await publishUplinks(
      server,
      [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: 'README-1', tsmGw: 'GW-1', batl: 77 }],
      'GW-1',
      'thingdesk-org',
    );
  });
  after(async () => {
    await server.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('the marker finder fails on a missing example', () => {
    assert.throws(() => readmeExample(readme, 'no-such-example'), /no example marked/);
  });

  test('sign in and a query with variables (curl)', async () => {
    const script = readmeExample(readme, 'graphql-curl')
      .replace('http://localhost:8080', server.url(''))
      .replace('PASSWORD-PRINTED-AT-FIRST-START', password);
    assert.notEqual(script, readmeExample(readme, 'graphql-curl'), 'the example names the address and the password placeholder');
    const { stdout } = await promisify(execFile)('bash', ['-euo', 'pipefail', '-c', script]);
    const answer = JSON.parse(stdout) as { data?: { things: { nodes: { tuid: string; batteryLevel: number }[] } }; errors?: unknown };
    assert.equal(answer.errors, undefined, stdout);
    assert.deepEqual(
      answer.data?.things.nodes.map((thing) => [thing.tuid, thing.batteryLevel]),
      [['README-1', 77]],
    );
  });

  test('the subscription script prints a message stored after it started', async () => {
    const file = join(scratch, 'watch.mjs');
    writeFileSync(file, readmeExample(readme, 'graphql-subscription'));
    const child = spawn(process.execPath, [file], {
      cwd: scratch,
      env: { ...process.env, THINGDESK_URL: server.url(''), THINGDESK_PASSWORD: password, TUID: 'README-2' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const exited = new Promise<number | null>((resolve) => child.on('exit', resolve));
    try {
      // The script cannot say when its subscription is in place: publish until a message comes through (each one
      // stored before then is simply not seen); the test runner's timeout ends a run that never sees one.
      let tsmTs = 1_700_000_100;
      while (!stdout.includes('\n') && child.exitCode === null) {
        await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs: tsmTs++, tsmTuid: 'README-2', uptime: 1 }], 'GW-1', 'thingdesk-org');
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      assert.equal(child.exitCode, null, `the script ended: ${stderr}`);
      const first = JSON.parse(stdout.split('\n')[0]!) as Record<string, unknown>;
      assert.equal(first['tsmTuid'], 'README-2');
      assert.equal(first['tsmId'], 1112);
      assert.match(stderr, /^watching: /);
    } finally {
      child.kill('SIGTERM');
      await exited;
    }
  });
});
