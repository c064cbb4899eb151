import assert from 'node:assert/strict';
import { request, type IncomingMessage } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setTimeout as sleep } from 'node:timers/promises';
import { parseUplink } from '../../../src/ingest/parse-uplink.js';
import { openDatabase } from '../../../src/store/database.js';
import { ingestBatchWriter } from '../../../src/store/batch-writer/batch-writer.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const t0 = 1_790_000_000;
const messageCount = 40_000;
// About 1 KB a message: the export is ~40 MB, more than the socket buffers of both ends can hold.
const padding = 'x'.repeat(1000);

/** Writes the thing's messages through the platform's batch writer, as ingest would (a second connection). */
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
      const { records } = parseUplink(JSON.stringify(messages), {
        organizationId: 'acme',
        gatewayTuid: 'GW-1',
        source: 'test',
        client: 'test',
        receivedAt: Date.now(),
      });
      await commit(records, []);
    }
  } finally {
    await commit.close();
    await database.close();
  }
}

/** Waits until `read()` stops changing (the server has stopped reading), and returns its value. */
async function settled(read: () => number): Promise<number> {
  let value = read();
  for (let unchanged = 0; unchanged < 10;) {
    await sleep(50);
    const next = read();
    unchanged = next === value ? unchanged + 1 : 0;
    value = next;
  }
  return value;
}

for (const target of storeTargets) {
  describe(`message export streaming on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let token: string;
    // Bodies the store has handed to the export (SQLite: pages of 1000; PostgreSQL: what each chunk of its COPY held).
    let bodiesRead = 0;
    let batchesRead = 0;
    let failAtBatch: number | undefined;

    before(async () => {
      const url = await target.createUrl();
      server = await startTestApp({ DATABASE_URL: url });
      token = await new RestClient(server).accessToken();
      await seed(url);
      // Count what the store hands to the export: the domain calls the store object the app was built with.
      const messages = server.app.store.messages;
      const exportBodies = messages.exportBodies.bind(messages);
      messages.exportBodies = async function* (query) {
        for await (const bodies of exportBodies(query)) {
          batchesRead += 1;
          if (batchesRead === failAtBatch) throw new Error('store gone');
          bodiesRead += bodies.length;
          yield bodies;
        }
      };
    });
    after(() => server?.stop());

    function startExport(): Promise<{ response: IncomingMessage; abort: () => void }> {
      return new Promise((resolve, reject) => {
        const outgoing = request(server.url(`${server.config.restBasePath}/things/BIG-1/messages/export`), {
          headers: { authorization: `Bearer ${token}` },
        });
        outgoing.on('response', (response) => resolve({ response, abort: () => outgoing.destroy() }));
        outgoing.on('error', reject);
        outgoing.end();
      });
    }

    test('a reader that pauses stops the store reads; resumed, it gets every message once, in order', async () => {
      bodiesRead = 0;
      const { response } = await startExport();
      assert.equal(response.statusCode, 200);
      response.pause();
      const whilePaused = await settled(() => bodiesRead);
      assert.ok(whilePaused < messageCount / 4, `${whilePaused} of ${messageCount} messages read while the client read nothing`);

      let text = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (text += chunk));
      await new Promise((resolve) => response.on('end', resolve).resume());
      const lines = text.split('\n').filter(Boolean);
      assert.equal(lines.length, messageCount);
      assert.ok(
        lines.every((line, i) => (JSON.parse(line) as { n: number }).n === i),
        'each message once, oldest first',
      );
      assert.equal(bodiesRead, messageCount, 'every message read once');
    });

    test('a store failure after the first byte cuts the connection: the client sees an incomplete body, not a short file', async () => {
      batchesRead = 0;
      failAtBatch = 3;
      try {
        const response = await fetch(server.url(`${server.config.restBasePath}/things/BIG-1/messages/export`), {
          headers: { authorization: `Bearer ${token}` },
        });
        assert.equal(response.status, 200);
        await assert.rejects(response.text());
      } finally {
        failAtBatch = undefined;
      }
    });

    test('HEAD answers the headers and reads nothing from the store', async () => {
      batchesRead = 0;
      const response = await fetch(server.url(`${server.config.restBasePath}/things/BIG-1/messages/export?format=csv`), {
        method: 'HEAD',
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal(response.status, 200);
      assert.equal(response.headers.get('content-type'), 'text/csv; charset=utf-8');
      assert.match(response.headers.get('content-disposition') ?? '', /^attachment; filename="thing-BIG-1-messages.csv"/);
      assert.equal(await settled(() => batchesRead), 0);
    });

    test('a client that goes away ends the export: no further messages are read', async () => {
      bodiesRead = 0;
      const { response, abort } = await startExport();
      await new Promise((resolve) => response.once('data', resolve));
      abort();
      const afterAbort = await settled(() => bodiesRead);
      assert.ok(afterAbort < messageCount / 4, `${afterAbort} of ${messageCount} messages read for a client that left`);
      const again = await fetch(server.url(`${server.config.restBasePath}/things/BIG-1/messages/export?from=${t0}&to=${t0 + 2}`), {
        headers: { authorization: `Bearer ${token}` },
      });
      assert.equal((await again.text()).split('\n').filter(Boolean).length, 3, 'the server goes on serving');
    });
  });
}
