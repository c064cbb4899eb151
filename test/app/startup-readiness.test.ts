import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { after, describe, test } from 'node:test';
import mqtt from 'mqtt';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { freePort } from '../helpers/platform-process.js';
import { testBootstrap, withTestSealingKey } from '../helpers/test-app.js';

after(cleanupStores);

const main = fileURLToPath(new URL('../../src/cli/main.ts', import.meta.url));

interface Answer {
  status: number;
  code?: string;
  retryAfter?: string | null;
}

/** One HTTP request, or undefined while nothing listens on the port yet. */
async function ask(url: string, init?: RequestInit): Promise<Answer | undefined> {
  try {
    const response = await fetch(url, { ...init, signal: AbortSignal.timeout(10_000) });
    const body = (await response.json().catch(() => ({}))) as { code?: string };
    return { status: response.status, code: body.code, retryAfter: response.headers.get('retry-after') };
  } catch {
    return undefined;
  }
}

/** One MQTT CONNECT with the bootstrap gateway credential: the CONNACK's return code, or undefined with no listener. */
function connackOf(port: number): Promise<number | undefined> {
  return new Promise((resolve) => {
    const client = mqtt.connect(`mqtt://127.0.0.1:${port}`, {
      username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
      password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      reconnectPeriod: 0,
      connectTimeout: 10_000,
      protocolVersion: 4,
    });
    const done = (code: number | undefined) => {
      client.end(true);
      resolve(code);
    };
    client.once('connect', () => done(0));
    // A refused CONNACK is an error whose code is the return code; a socket error's code is a string.
    client.once('error', (error) => {
      const code = (error as { code?: unknown }).code;
      done(typeof code === 'number' ? code : undefined);
    });
    client.once('close', () => done(undefined));
  });
}

for (const target of storeTargets) {
  describe(`a fresh platform on ${target.name} is ready when it says so`, { skip: target.skip }, () => {
    test('from the first accepted connection: 503 STARTING or 200 for the bootstrap credentials, never 401; CONNACK "server unavailable" or accepted, never "bad credentials"; /readyz 200 only once they work', async () => {
      const [httpPort, mqttPort] = [await freePort(), await freePort()];
      const child = spawn(process.execPath, ['--import', 'tsx', main, 'serve'], {
        env: withTestSealingKey({
          ...process.env,
          ...testBootstrap,
          DATABASE_URL: await target.createUrl(),
          PORT: String(httpPort),
          MQTT_PORT: String(mqttPort),
          HOST: '127.0.0.1',
          LOG_LEVEL: 'warn',
        }),
        stdio: ['ignore', 'pipe', 'pipe'],
      });
      let output = '';
      child.stdout!.on('data', (chunk) => (output += chunk));
      child.stderr!.on('data', (chunk) => (output += chunk));
      const base = `http://127.0.0.1:${httpPort}`;
      const credentials = JSON.stringify({
        client_id: testBootstrap.BOOTSTRAP_CLIENT_ID,
        client_secret: testBootstrap.BOOTSTRAP_CLIENT_SECRET,
      });
      const tokens: Answer[] = [];
      const connacks: number[] = [];
      let readyBeforeWorking = 0;
      try {
        const deadline = Date.now() + 60_000;
        let working = false;
        const mqttLoop = (async () => {
          for (let accepted = false; !accepted && Date.now() < deadline;) {
            const code = await connackOf(mqttPort);
            if (code === undefined) await new Promise((resolve) => setTimeout(resolve, 5));
            else connacks.push(code);
            accepted = code === 0;
          }
        })();
        while (!working && Date.now() < deadline) {
          assert.equal(child.exitCode, null, `the platform exited:\n${output}`);
          const ready = await ask(`${base}/readyz`);
          const token = await ask(`${base}/api/v1/auth/client-token`, {
            method: 'POST',
            headers: { 'content-type': 'application/json' },
            body: credentials,
          });
          if (token) tokens.push(token);
          working = token?.status === 200;
          // Asked before the token request: a ready platform must already take the credentials.
          if (ready?.status === 200 && !working) readyBeforeWorking++;
          if (!token) await new Promise((resolve) => setTimeout(resolve, 5));
        }
        await mqttLoop;
        assert.ok(working, `the bootstrap client got a token within 60 s:\n${output}`);
        assert.equal((await ask(`${base}/readyz`))?.status, 200, 'ready afterwards');
      } finally {
        child.kill('SIGTERM');
        await new Promise((resolve) => (child.exitCode === null ? child.once('exit', resolve) : resolve(undefined)));
      }
      const refusals = tokens.filter((answer) => answer.status !== 200);
      assert.deepEqual(
        refusals.filter((answer) => answer.status !== 503 || answer.code !== 'STARTING' || answer.retryAfter !== '1'),
        [],
        'before the first 200, only 503 STARTING with Retry-After: 1',
      );
      assert.equal(readyBeforeWorking, 0, '/readyz said 200 while the bootstrap credentials did not work yet');
      // 3: server unavailable (MQTT 3.1.1); 4 and 5 would say the credential is wrong or throttled.
      assert.deepEqual(
        connacks.filter((code) => code !== 0 && code !== 3),
        [],
        `CONNACK: server unavailable until started (${connacks.join(' ')})`,
      );
      assert.equal(connacks.at(-1), 0, 'the gateway is accepted once started');
    });
  });
}
