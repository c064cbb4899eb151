import assert from 'node:assert/strict';
import { request as httpRequest } from 'node:http';
import { after, before, describe, test } from 'node:test';
import { setImmediate as nextTurn, setTimeout as sleep } from 'node:timers/promises';
import type { Store } from '../../../src/store/store.js';
import { cleanupStores, storeTargets } from '../../helpers/databases.js';
import type { GraphqlClient } from '../../helpers/graphql-client.js';
import { signInAs } from '../../helpers/graphql-users.js';
import { LiveSocket } from '../../helpers/live-socket.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const day = 1_790_035_200;

/**
 * The seam: every method of the parts of the real store a series read uses counted when called, and each call started
 * one turn of the event loop later, as a read on a reader thread or on PostgreSQL would be: the loop turns between
 * reads, so a response can go out while sibling resolvers still read. `onCall` runs at each counted call.
 */
function countStoreReads(store: Store) {
  const reads = { calls: 0, counting: false, onCall: () => {}, names: [] as string[] };
  for (const part of [store.rollups, store.groups, store.retention, store.things] as unknown as Record<string, unknown>[]) {
    for (const [name, method] of Object.entries(part)) {
      if (typeof method !== 'function') continue;
      part[name] = async (...args: unknown[]) => {
        if (reads.counting) {
          reads.calls += 1;
          reads.names.push(name);
          reads.onCall();
        }
        await nextTurn();
        return (method as (...a: unknown[]) => unknown).apply(part, args);
      };
    }
  }
  return reads;
}

/** Waits until no store call has been made for `quietMs`. */
async function settle(reads: { calls: number }, quietMs = 300): Promise<void> {
  for (let last = -1; last !== reads.calls;) {
    last = reads.calls;
    await sleep(quietMs);
  }
}

// The messages lie in the range's first five hours; the last of them (where `rare` is) not whole in the range.
const range = `from: ${day}, to: ${day + 17_990}, bucket: "raw", maxPoints: 1`;
/**
 * Twenty aliased groupSeries, each over maxPoints. The first is refused from the group's hourly counts (every
 * message has `temp`); the nineteen others read the field `rare`, which only the two newest messages carry, in an
 * hour not whole in the range: the counts cannot refuse them, so each reads ten times more raw messages three times
 * before it finds its two points and fails too.
 */
const twentyFailing = `{
  first: groupSeries(groupId: "unassigned", tsmId: 12100, field: "temp", ${range}) { bucket }
  ${Array.from({ length: 19 }, (_, i) => `s${i}: groupSeries(groupId: "unassigned", tsmId: 12100, field: "rare", ${range}) { bucket }`).join('\n  ')}
}`;

for (const target of storeTargets) {
  describe(`GraphQL work nobody waits for stops, on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let viewer: GraphqlClient;
    let reads: ReturnType<typeof countStoreReads>;

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      viewer = (await signInAs(server, 'Viewer')).client;
      const uplinks = Array.from({ length: 300 }, (_, i) => ({
        tsmId: 12100,
        tsmEv: 10,
        tsmTs: day + i * 60,
        tsmTuid: 'S-1',
        temp: 20 + (i % 7),
        ...(i >= 298 ? { rare: i } : {}),
      }));
      await publishUplinks(server, uplinks);
      reads = countStoreReads(server.app.store);
    });
    after(() => server?.stop());

    test('twenty failing aliased groupSeries: once the answer is out, no store read starts', async () => {
      reads.calls = 0;
      reads.counting = true;
      const response = await viewer.request(twentyFailing);
      const atAnswer = reads.calls;
      await settle(reads);
      reads.counting = false;
      assert.equal(response.body.data, null, JSON.stringify(response.body));
      assert.equal(response.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT');
      assert.equal(reads.calls - atAnswer, 0, `${reads.calls - atAnswer} store reads started after the answer (${atAnswer} before)`);
    });

    test("a group's raw series over maxPoints is refused from the hourly counts, before any raw message is read", async () => {
      reads.names = [];
      reads.counting = true;
      const response = await viewer.request(
        `{ groupSeries(groupId: "unassigned", tsmId: 12100, field: "temp", from: ${day}, to: ${day + 86_400}, bucket: "raw", maxPoints: 10) { bucket } }`,
      );
      await settle(reads);
      reads.counting = false;
      assert.equal(response.body.errors?.[0]?.extensions?.code, 'BAD_USER_INPUT', JSON.stringify(response.body));
      assert.match(response.body.errors![0]!.message, /bucket raw gives more than maxPoints 10/);
      assert.deepEqual(
        reads.names.filter((name) => name === 'rawMessages'),
        [],
        `reads: ${reads.names.join(', ')}`,
      );
    });

    test('over WebSocket too: once the failed result is sent, no store read starts', async () => {
      const socket = new LiveSocket(server, viewer.accessToken!);
      try {
        await socket.ready;
        reads.calls = 0;
        reads.counting = true;
        // Taken when the answer arrives, not when a poll notices it.
        let atAnswer = -1;
        socket.socket.once('message', () => (atAnswer = reads.calls));
        socket.subscribe('1', twentyFailing);
        await socket.waitUntil(() => socket.of('1').length > 0, 10_000);
        await settle(reads);
        reads.counting = false;
        assert.equal(socket.of('1')[0]!.type, 'next', JSON.stringify(socket.of('1')));
        assert.equal(reads.calls - atAnswer, 0, `${reads.calls - atAnswer} store reads started after the answer (${atAnswer} before)`);
      } finally {
        socket.close();
      }
    });

    test('a client that goes away mid-request: its remaining reads do not start', async () => {
      // What the request reads when its client waits for the answer.
      reads.calls = 0;
      reads.counting = true;
      await viewer.request(twentyFailing);
      await settle(reads);
      const whole = reads.calls;

      reads.calls = 0;
      const body = JSON.stringify({ query: twentyFailing });
      const url = new URL(server.url(server.config.graphqlPath));
      const client = httpRequest(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${viewer.accessToken}` },
      });
      client.on('error', () => undefined);
      // The client leaves at the first read the request makes.
      reads.onCall = () => {
        reads.onCall = () => {};
        client.destroy();
      };
      client.end(body);
      await settle(reads);
      reads.counting = false;
      // Reads already started when the server learns of the close finish; none starts after. The twenty resolvers
      // read in rounds, one per turn of the event loop; the client leaves during the first, and the server reads the
      // end of its connection at the next turn, when the second has started: at most two rounds (40) go out.
      assert.ok(whole >= 60, `the whole request reads ${whole} times`);
      assert.ok(reads.calls <= 40, `${reads.calls} store reads for a request whose client left at the first (${whole} when it stays)`);
    });
  });
}
