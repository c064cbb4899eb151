import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import type { MqttClient } from 'mqtt';
import { createMqttCredential, createOrganization } from '../../src/domain/identity/identity-service.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { closeMqttClients, collectMessages, connectMqtt } from '../helpers/mqtt-clients.js';
import { startTestApp, testBootstrap, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);
after(closeMqttClients);

const t0 = 1_790_000_000;

for (const target of storeTargets) {
  describe(`uplink ingest through the embedded broker on ${target.name}`, { skip: target.skip }, () => {
    let server: TestApp;
    let gateway: MqttClient;
    const publish = (payload: unknown, gatewayTuid = 'GW-1') =>
      gateway.publishAsync(`thingdesk/acme/up/${gatewayTuid}`, typeof payload === 'string' ? payload : JSON.stringify(payload), { qos: 1 });
    const messagesOf = async (tuid: string) =>
      (await server.app.store.messages.listJson({ tuid, limit: 100 })).map((text) => JSON.parse(text) as Record<string, unknown>);
    const deadLetters = () => server.app.store.deadLetters.list({ organizationId: 'acme', limit: 100 });

    before(async () => {
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      gateway = await connectMqtt(server.mqttUrl, {
        username: testBootstrap.BOOTSTRAP_MQTT_USERNAME,
        password: testBootstrap.BOOTSTRAP_MQTT_PASSWORD,
      });
    });
    after(() => server?.stop());

    test('an array is stored message by message, newest first, each with deploymentGroupId; the thing is claimed as new', async () => {
      await publish([
        { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'ARR-1', tsmGw: 'GW-1', batl: 91.4 },
        { tsmId: 12100, tsmEv: 10, tsmTs: t0 + 5, tsmTuid: 'ARR-1', tsmGw: 'GW-1', temp: 21.5, humd: 40 },
      ]);
      const stored = await messagesOf('ARR-1');
      assert.deepEqual(stored, [
        { tsmId: 12100, tsmEv: 10, tsmTs: t0 + 5, tsmTuid: 'ARR-1', tsmGw: 'GW-1', temp: 21.5, humd: 40, deploymentGroupId: 'unassigned' },
        { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'ARR-1', tsmGw: 'GW-1', batl: 91.4, deploymentGroupId: 'unassigned' },
      ]);
      const thing = await server.app.store.things.get('ARR-1');
      assert.equal(thing?.organizationId, 'acme');
      assert.equal(thing?.installationStatus, 'new');
      assert.equal(thing?.groupId, null);
    });

    test('a single object is accepted as well as an array', async () => {
      await publish({ tsmId: 1112, tsmEv: 10, tsmTs: t0, tsmTuid: 'SINGLE-1', uptime: 3600 });
      assert.deepEqual(await messagesOf('SINGLE-1'), [
        { tsmId: 1112, tsmEv: 10, tsmTs: t0, tsmTuid: 'SINGLE-1', uptime: 3600, deploymentGroupId: 'unassigned' },
      ]);
    });

    test('unknown ids and unknown fields are stored as received, not flagged', async () => {
      await publish([
        { tsmId: 24100, tsmEv: 10, tsmTs: t0, tsmTuid: 'UNKNOWN-1', carbonDioxide: 612 },
        { tsmId: 2100, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'UNKNOWN-1', state: 'open', extra: { nested: [1, 2] } },
      ]);
      const stored = await messagesOf('UNKNOWN-1');
      assert.equal(stored.length, 2);
      assert.deepEqual(stored[0]?.extra, { nested: [1, 2] });
      assert.equal(stored[1]?.carbonDioxide, 612);
    });

    test("a message breaking its id's rules is stored anyway, flagged and counted", async () => {
      const before = await metricValue(server, 'thingdesk_ingest_flagged_total');
      await publish([{ tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'FLAG-1', batl: 'full' }]);
      assert.deepEqual(await messagesOf('FLAG-1'), [
        { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'FLAG-1', batl: 'full', deploymentGroupId: 'unassigned' },
      ]);
      assert.equal((await metricValue(server, 'thingdesk_ingest_flagged_total')) - before, 1);
    });

    test('unreadable payloads and messages go to the dead letters with the reason; the connection and the rest survive', async () => {
      await publish('this is not json');
      await publish([
        { tsmId: 1110, tsmTs: t0, batl: 50 },
        { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'DEAD-OK', batl: 50 },
        42,
        { tsmTuid: 'bad tuid!', tsmId: 1, tsmTs: 1 },
      ]);
      const letters = await deadLetters();
      const reasons = letters.map((l) => l.reason);
      assert.ok(
        reasons.some((r) => r.startsWith('payload is not JSON')),
        reasons.join('\n'),
      );
      assert.ok(
        reasons.some((r) => r.startsWith('message [0]:') && r.includes('tsmTuid')),
        reasons.join('\n'),
      );
      assert.ok(
        reasons.some((r) => r.startsWith('message [2]:')),
        reasons.join('\n'),
      );
      assert.ok(
        reasons.some((r) => r.startsWith('message [3]: tsmTuid must match')),
        reasons.join('\n'),
      );
      assert.ok(
        letters.some((l) => l.payload === 'this is not json' && l.source === 'thingdesk/acme/up/GW-1' && l.client === 'acme-gateway'),
      );
      assert.equal((await messagesOf('DEAD-OK')).length, 1, 'the good message of the array is stored');
      assert.ok(gateway.connected);
    });

    test('summary: newest by tsmTs wins per field; a late, older message changes nothing', async () => {
      await publish([
        { tsmId: 1100, tsmEv: 11, tsmTs: t0 + 10, tsmTuid: 'SUM-1', tsmGw: 'GW-1', swVersion: '2.0.0', modelCode: 'M', psn: 'P' },
        { tsmId: 1110, tsmEv: 10, tsmTs: t0 + 20, tsmTuid: 'SUM-1', tsmGw: 'GW-1', batl: 77.6 },
        { tsmId: 1210, tsmEv: 10, tsmTs: t0 + 30, tsmTuid: 'SUM-1', tsmGw: 'GW-1', lat: 60.17, lon: 24.94, lacr: 5 },
      ]);
      await publish(
        [
          { tsmId: 1100, tsmEv: 11, tsmTs: t0 + 5, tsmTuid: 'SUM-1', tsmGw: 'GW-2', swVersion: '1.0.0' },
          { tsmId: 1110, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'SUM-1', tsmGw: 'GW-2', batl: 99 },
          { tsmId: 1210, tsmEv: 10, tsmTs: t0 + 2, tsmTuid: 'SUM-1', tsmGw: 'GW-2', lat: 1, lon: 2 },
          { tsmId: 12100, tsmEv: 10, tsmTs: t0 + 3, tsmTuid: 'SUM-1', tsmGw: 'GW-2', temp: 1 },
        ],
        'GW-2',
      );
      const thing = await server.app.store.things.get('SUM-1');
      assert.deepEqual(thing?.summary, {
        timestamp: t0 + 30,
        gatewayTuid: 'GW-1',
        batteryLevel: 77.6,
        version: '2.0.0',
        location: { lat: 60.17, lon: 24.94 },
      });
      assert.equal(thing?.lastHeardGatewayTuid, 'GW-2', 'arrival order decides through which gateway it was last heard');
      await publish([{ tsmId: 1110, tsmEv: 10, tsmTs: t0 + 40, tsmTuid: 'SUM-1', tsmGw: 'GW-2', batl: 12 }], 'GW-2');
      const newer = await server.app.store.things.get('SUM-1');
      assert.deepEqual(newer?.summary, {
        timestamp: t0 + 40,
        gatewayTuid: 'GW-2',
        batteryLevel: 12,
        version: '2.0.0',
        location: { lat: 60.17, lon: 24.94 },
      });
    });

    test('a redelivered message is stored once and counted as a duplicate', async () => {
      const payload = JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'DUP-1', batl: 60 }]);
      const before = await metricValue(server, 'thingdesk_ingest_duplicates_total');
      await publish(payload);
      await publish(payload);
      await publish(JSON.stringify([JSON.parse(payload)[0], JSON.parse(payload)[0]]));
      assert.equal(await server.app.store.messages.count('DUP-1'), 1);
      assert.equal((await metricValue(server, 'thingdesk_ingest_duplicates_total')) - before, 3);
      // The same id and time with other content is another message, not a duplicate.
      await publish([{ tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'DUP-1', batl: 59 }]);
      assert.equal(await server.app.store.messages.count('DUP-1'), 2);
    });

    test("a message for another organization's thing goes to the dead letters with the reason", async () => {
      const deps = { store: server.app.store, clock: server.app.clock };
      await createOrganization(deps, { name: 'Rival', id: 'rival' });
      await createMqttCredential(deps, { organizationId: 'rival', kind: 'gateway', username: 'rival-gw', password: 'rival-gw-password' });
      const rival = await connectMqtt(server.mqttUrl, { username: 'rival-gw', password: 'rival-gw-password' });
      await rival.publishAsync(
        'thingdesk/rival/up/RGW',
        JSON.stringify([{ tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'RIVAL-1', batl: 1 }]),
        { qos: 1 },
      );
      await publish([{ tsmId: 1110, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'RIVAL-1', batl: 2 }]);
      assert.equal(await server.app.store.messages.count('RIVAL-1'), 1);
      assert.equal((await server.app.store.things.get('RIVAL-1'))?.organizationId, 'rival');
      const letters = await deadLetters();
      assert.ok(letters.some((l) => l.reason === 'thing RIVAL-1 belongs to another organization' && l.payload.includes('"batl":2')));
    });

    test('the data feed publishes every stored uplink once, as one object with deploymentGroupId', async () => {
      const deps = { store: server.app.store, clock: server.app.clock };
      await createMqttCredential(deps, {
        organizationId: 'acme',
        kind: 'integration',
        username: 'acme-feed',
        password: 'acme-feed-password',
      });
      const feed = await connectMqtt(server.mqttUrl, { username: 'acme-feed', password: 'acme-feed-password' });
      const inbox = collectMessages(feed);
      await feed.subscribeAsync('thingdesk/acme/data/#', { qos: 1 });
      const payload = [
        { tsmId: 1110, tsmEv: 10, tsmTs: t0, tsmTuid: 'FEED-1', batl: 55 },
        { tsmId: 12101, tsmEv: 10, tsmTs: t0 + 1, tsmTuid: 'FEED-1', hall: 1 },
      ];
      await publish(payload);
      await publish(payload);
      await inbox.waitFor(2);
      await new Promise((resolve) => setTimeout(resolve, 200));
      assert.deepEqual(
        inbox.received.map((m) => [m.topic, JSON.parse(m.payload)]).sort(),
        [
          ['thingdesk/acme/data/unassigned/FEED-1/1110', { ...payload[0], deploymentGroupId: 'unassigned' }],
          ['thingdesk/acme/data/unassigned/FEED-1/12101', { ...payload[1], deploymentGroupId: 'unassigned' }],
        ].sort(),
      );
    });
  });
}

async function metricValue(server: TestApp, name: string): Promise<number> {
  const text = await server.app.metrics.registry.getSingleMetricAsString(name);
  return Number(/ (\d+(?:\.\d+)?)$/m.exec(text)?.[1] ?? 0);
}
