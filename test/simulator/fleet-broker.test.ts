/** A fleet through a real broker: every message arrives, counts match, commands are echoed. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { validateUplink } from '../../src/catalog/index.js';
import { runFleet, startFleet } from '../../src/simulator/fleet.js';
import type { FleetProgress } from '../../src/simulator/fleet-types.js';
import { startTestBroker, UplinkCollector, type TestBroker } from './broker-helpers.js';

/** Sends 60 messages through `url` and checks each arrived once, valid, on its gateway's topic. */
async function checkRoundTrip(url: string, organizationId: string): Promise<void> {
  const collector = await UplinkCollector.connect(url, `thingdesk/${organizationId}/up/+`);
  try {
    const progress: FleetProgress[] = [];
    const report = await runFleet({
      url,
      organizationId,
      gateways: 2,
      devices: 6,
      rate: 200,
      batchSize: 4,
      messages: 60,
      tuidPrefix: 'RT',
      progressIntervalMs: 100,
      onProgress: (entry) => progress.push(entry),
    });
    assert.equal(report.gateways, 2);
    assert.equal(report.devices, 6);
    assert.equal(report.messagesSent, 60);
    assert.equal(report.messagesAcked, 60);
    assert.equal(report.publishes, 15);
    assert.equal(report.publishesAcked, 15);
    assert.equal(report.errors, 0);
    assert.ok(report.ackLatencyMs.max >= report.ackLatencyMs.p99 && report.ackLatencyMs.p99 >= report.ackLatencyMs.p50);
    assert.ok(report.messagesPerSecond > 0);
    assert.ok(progress.length > 0, 'progress was reported');

    const received = await collector.waitFor(() => collector.messages.length >= 60).then(() => collector.messages);
    assert.equal(received.length, 60);
    for (const publish of collector.publishes) {
      for (const message of publish.messages) assert.equal(publish.topic, `thingdesk/${organizationId}/up/${String(message['tsmGw'])}`);
    }
    for (const message of received) assert.deepEqual(validateUplink(message), { errors: [], warnings: [] });
    const devices = new Set(received.map((message) => message['tsmTuid']));
    assert.equal(devices.size, 6, 'every device reported');
    assert.equal(received.filter((message) => message['tsmId'] === 1100).length, 6, 'system info once per device');
  } finally {
    await collector.close();
  }
}

describe('fleet through an embedded aedes broker', () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker();
  });
  after(async () => {
    await broker.close();
  });

  test('a small fleet delivers every message and its report counts them', async () => {
    await checkRoundTrip(broker.url, 'test-org');
  });

  test('a 1500 command is echoed on the uplink topic with event 31 and the same transactionId', async () => {
    const collector = await UplinkCollector.connect(broker.url, 'thingdesk/test-org/up/+');
    const fleet = await startFleet({ url: broker.url, organizationId: 'test-org', gateways: 2, devices: 6, rate: 5, tuidPrefix: 'CMD' });
    try {
      assert.equal(fleet.protocolVersion, 5, 'MQTT 5 first');
      const target = fleet.deviceTuids[4]!;
      const command = { tsmId: 1500, tsmEv: 30, tsmDstTuid: target, transactionId: 4711, measurementInterval: 30, reportInterval: 900 };
      await collector.client.publishAsync(`thingdesk/test-org/down/${target}`, JSON.stringify([command]), { qos: 1 });
      const echo = await collector.waitFor((message) => message['transactionId'] === 4711, 3000);
      assert.deepEqual(echo, {
        tsmId: 1500,
        tsmEv: 31,
        tsmTs: echo['tsmTs'],
        tsmTuid: target,
        tsmGw: 'CMD-GW-0002',
        transactionId: 4711,
        measurementInterval: 30,
        reportInterval: 900,
      });
      assert.ok(
        collector.publishes.some((publish) => publish.topic === 'thingdesk/test-org/up/CMD-GW-0002' && publish.messages.includes(echo)),
      );
      const report = await fleet.stop();
      assert.equal(report.commandsReceived, 1, 'the other gateway ignored a command for a device it does not carry');
      assert.equal(report.responsesSent, 1);
    } finally {
      await fleet.stop();
      await collector.close();
    }
  });

  test('rate 0 sends as fast as acknowledgements allow and settles exactly the budget', async () => {
    const report = await runFleet({
      url: broker.url,
      organizationId: 'test-org',
      gateways: 4,
      devices: 200,
      rate: 0,
      messages: 2000,
      tuidPrefix: 'FAST',
    });
    assert.equal(report.messagesSent, 2000);
    assert.equal(report.messagesAcked, 2000);
    assert.equal(report.publishesAcked, 2000);
    assert.equal(report.errors, 0);
  });

  test('a held fleet sends nothing new until let go, at rate 0 and at a rate, without a burst after', async () => {
    for (const rate of [0, 400]) {
      const fleet = await startFleet({
        url: broker.url,
        organizationId: 'test-org',
        gateways: 2,
        devices: 20,
        rate,
        tuidPrefix: `HOLD${rate}`,
      });
      try {
        await new Promise((resolve) => setTimeout(resolve, 200));
        fleet.hold(true);
        // Publishes already in flight settle; after that nothing more is sent while held.
        await new Promise((resolve) => setTimeout(resolve, 200));
        const heldAt = fleet.progress().messagesSent;
        assert.ok(heldAt > 0, `rate ${rate}: the fleet sent before it was held`);
        await new Promise((resolve) => setTimeout(resolve, 500));
        assert.equal(fleet.progress().messagesSent, heldAt, `rate ${rate}: nothing sent while held`);
        fleet.hold(false);
        await new Promise((resolve) => setTimeout(resolve, 250));
        const resumed = fleet.progress().messagesSent - heldAt;
        assert.ok(resumed > 0, `rate ${rate}: sending resumed`);
        // At 400/s, 250 ms owe about 100 messages; the 500 ms held must not be owed on top (about 300).
        if (rate > 0) assert.ok(resumed < 200, `rate ${rate}: ${resumed} sent in 250 ms after the hold, a burst`);
      } finally {
        await fleet.stop();
      }
    }
  });

  test('rate 0 with batches of 10 and a bare object per publish with batch 1', async () => {
    const batched = await runFleet({
      url: broker.url,
      organizationId: 'test-org',
      gateways: 2,
      devices: 20,
      rate: 0,
      batchSize: 10,
      messages: 1000,
      tuidPrefix: 'BATCH',
    });
    assert.deepEqual([batched.publishesAcked, batched.messagesAcked], [100, 1000]);
    const collector = await UplinkCollector.connect(broker.url, 'thingdesk/test-org/up/SINGLE-GW-0001');
    try {
      await runFleet({
        url: broker.url,
        organizationId: 'test-org',
        gateways: 1,
        devices: 2,
        rate: 0,
        singleObject: true,
        messages: 5,
        tuidPrefix: 'SINGLE',
      });
      await collector.waitFor(() => collector.publishes.length === 5);
      assert.ok(collector.publishes.every((publish) => publish.messages.length === 1));
    } finally {
      await collector.close();
    }
  });

  test('a duration stops the fleet; a refused connection rejects with nothing left running', async () => {
    const report = await runFleet({
      url: broker.url,
      organizationId: 'test-org',
      gateways: 1,
      devices: 3,
      rate: 20,
      durationS: 0.5,
      tuidPrefix: 'TIMED',
    });
    // Pacing bounds the count from above; a loaded machine may send fewer, never more.
    assert.ok(report.messagesAcked >= 1 && report.messagesAcked <= 12, `${report.messagesAcked} messages in 0.5 s at 20/s`);
    await assert.rejects(startFleet({ url: 'mqtt://127.0.0.1:1', organizationId: 'test-org', gateways: 1, devices: 1, rate: 1 }));
  });
});

const externalUrl = process.env['TEST_MQTT_URL'];
describe('fleet through an external broker', () => {
  test(
    'a small fleet round trip',
    externalUrl === undefined ? { skip: 'TEST_MQTT_URL not set: external broker test skipped' } : {},
    async () => {
      await checkRoundTrip(externalUrl!, `sim-${randomBytes(4).toString('hex')}`);
    },
  );
});
