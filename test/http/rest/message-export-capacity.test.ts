import assert from 'node:assert/strict';
import { Agent, request, type IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { parseUplink } from '../../../src/ingest/parse-uplink.js';
import { openDatabase } from '../../../src/store/database.js';
import { ingestBatchWriter } from '../../../src/store/batch-writer/batch-writer.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

// What exports hold while they run: on PostgreSQL a connection each (outside the store's pool, EXPORT_CONNECTIONS
// at most), on both stores a socket and a few chunks. A client that leaves or stops reading must give them back.
const t0 = 1_790_000_000;
const messageCount = 20_000;
// About 1 KB a message: the export is ~20 MB, more than the socket buffers of both ends hold, so a client that
// does not read stalls it.
const padding = 'x'.repeat(1000);
const exportConnections = 2;

async function seed(url: string): Promise<void> {
  const database = await openDatabase(url);
  const commit = ingestBatchWriter(database);
  try {
    for (let start = 0; start < messageCount; start += 1000) {
      const messages = Array.from({ length: 1000 }, (_, i) => ({
        tsmId: 99001,
        tsmTs: t0 + start + i,
        tsmTuid: 'BIG-1',
        n: start + i,
        padding,
      }));
      const context = { organizationId: 'acme', gatewayTuid: 'GW-1', source: 'test', client: 'test', receivedAt: Date.now() };
      await commit(parseUplink(JSON.stringify(messages), context).records, []);
    }
  } finally {
    await commit.close();
    await database.close();
  }
}

for (const target of storeTargets) {
  describe(`message export capacity on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let token: string;
    // Exports whose store read is under way: the count falls when the read has ended and released what it held.
    let reading = 0;
    const whenIdle: (() => void)[] = [];
    // Every client gets its own socket: a stalled one must not hold up the next request on a shared one.
    const agent = new Agent({ keepAlive: false, maxSockets: Infinity });

    before(async () => {
      const url = await target.createUrl();
      server = await startTestApp({
        DATABASE_URL: url,
        EXPORT_CONNECTIONS: String(exportConnections),
        // Long enough that no stalled export is cut (freeing its slot) before all 100 have asked, on a busy host too.
        EXPORT_STALL_TIMEOUT_S: '4',
        RATE_LIMIT_PER_TOKEN: '100000',
        RATE_LIMIT_PER_ADDRESS: '100000',
      });
      token = await new RestClient(server).accessToken();
      await seed(url);
      const messages = server.app.store.messages;
      const exportBodies = messages.exportBodies.bind(messages);
      messages.exportBodies = async function* (query) {
        reading += 1;
        try {
          // yield* hands return() on to the store's read and waits for it: its connection is closed when this ends.
          yield* exportBodies(query);
        } finally {
          reading -= 1;
          if (reading === 0) for (const resolve of whenIdle.splice(0)) resolve();
        }
      };
    });
    after(async () => {
      agent.destroy();
      await server?.stop();
    });

    const exportPath = (query = '') => `${server.config.restBasePath}/things/BIG-1/messages/export${query}`;
    const idle = () => (reading === 0 ? Promise.resolve() : new Promise<void>((resolve) => whenIdle.push(resolve)));

    /** Starts an export and answers its response unread (paused). */
    function startExport(): Promise<{ response: IncomingMessage; abort: () => void }> {
      return new Promise((resolve, reject) => {
        const outgoing = request(server.url(exportPath()), { agent, headers: { authorization: `Bearer ${token}` } });
        outgoing.on('response', (response) => {
          response.pause();
          // A cut connection is reported on the response; the test waits for 'close' instead.
          response.on('error', () => undefined);
          resolve({ response, abort: () => outgoing.destroy() });
        });
        outgoing.on('error', reject);
        outgoing.end();
      });
    }

    async function completeExport(): Promise<number> {
      const response = await fetch(server.url(exportPath(`?from=${t0}&to=${t0 + 2999}`)), {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 200);
      return (await response.text()).split('\n').filter(Boolean).length;
    }

    test('clients that go away give their exports back: more exports than EXPORT_CONNECTIONS then all complete', async () => {
      for (let i = 0; i < exportConnections + 1; i++) {
        const { response, abort } = await startExport();
        assert.equal(response.statusCode, 200);
        await new Promise((resolve) => response.once('readable', resolve));
        abort();
        await idle();
      }
      for (let i = 0; i < exportConnections + 2; i++) assert.equal(await completeExport(), 3000);
      const together = await Promise.all(Array.from({ length: exportConnections }, completeExport));
      assert.deepEqual(together, Array(exportConnections).fill(3000));
    });

    // The timeout turns a stall timeout that never fires into a failure instead of a hang.
    test(
      '100 clients that start exports and never read take nothing the other requests need, and are cut',
      { timeout: 60_000 },
      async () => {
        const stalled = await Promise.all(Array.from({ length: 100 }, startExport));
        const started = stalled.filter(({ response }) => response.statusCode === 200);
        const refused = stalled.filter(({ response }) => response.statusCode !== 200);
        if (target.name === 'postgres') {
          // Each export holds a connection of its own: past EXPORT_CONNECTIONS, 503 before the first byte.
          assert.equal(started.length, exportConnections);
          for (const { response } of refused) await assertRefused(response, 503, 'SERVICE_UNAVAILABLE');
        } else {
          // SQLite holds no connection between pages: what bounds one caller's exports is its heavy-read slots.
          assert.equal(started.length, server.config.heavyRequestsPerCaller);
          for (const { response } of refused) await assertRefused(response, 429, 'RATE_LIMITED');
        }

        // Meanwhile everybody else is served, more requests at once than the store's pool has connections.
        const client = new RestClient(server);
        const reads = await Promise.all(
          Array.from({ length: 30 }, (_, i) =>
            fetch(server.url(`${server.config.restBasePath}/things/BIG-1/messages?limit=5&from=${t0 + i}`), {
              headers: { authorization: `Bearer ${token}` },
            }),
          ),
        );
        assert.deepEqual(
          reads.map((response) => response.status),
          Array(30).fill(200),
        );
        assert.ok(await client.accessToken(), 'a new token is issued');

        // No byte moves on the stalled exports: the server cuts each after EXPORT_STALL_TIMEOUT_S and its read ends.
        // (The clients, reading nothing, have not seen the end of their connections yet.)
        await idle();
        for (const { response } of started) {
          await new Promise((resolve) => response.once('close', resolve).resume());
          assert.equal(response.complete, false, 'a stalled export ends incomplete');
        }
        assert.equal(await completeExport(), 3000, 'exports run again');
      },
    );
  });
}

/** A refused export: its status, and the code of its error body. */
async function assertRefused(response: IncomingMessage, status: number, code: string): Promise<void> {
  assert.equal(response.statusCode, status);
  let text = '';
  response.setEncoding('utf8').on('data', (chunk: string) => (text += chunk));
  await new Promise((resolve) => response.on('end', resolve).resume());
  assert.equal((JSON.parse(text) as { code: string }).code, code);
}
