/** A fleet through brokers that refuse part of it: MQTT 5 (it falls back to 3.1.1), or every publish. */
import { after, before, describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { startFleet } from '../../src/simulator/fleet.js';
import { startTestBroker, type TestBroker } from './broker-helpers.js';

describe('fleet through a broker that speaks MQTT 3.1.1 only', () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker({ only311: true });
  });
  after(async () => {
    await broker.close();
  });

  test('the fleet falls back to 3.1.1 and delivers; asked for MQTT 5 explicitly, it refuses to start', async () => {
    const fleet = await startFleet({
      url: broker.url,
      organizationId: 'test-org',
      gateways: 2,
      devices: 4,
      rate: 0,
      messages: 20,
      tuidPrefix: 'OLD',
    });
    assert.equal(fleet.protocolVersion, 4);
    const report = await fleet.stop();
    assert.equal(report.errors, 0);
    assert.ok(report.messagesAcked > 0, `${report.messagesAcked} messages acknowledged over 3.1.1`);
    await assert.rejects(
      startFleet({ url: broker.url, organizationId: 'test-org', gateways: 2, devices: 2, rate: 1, protocolVersion: 5 }),
      /Unacceptable protocol version/,
    );
  });
});

describe('fleet through a broker that refuses every publish', () => {
  let broker: TestBroker;
  before(async () => {
    broker = await startTestBroker({ authorizePublish: (_client, _packet, done) => done(new Error('not allowed')) });
  });
  after(async () => {
    await broker.close();
  });

  // MQTT 3.1.1 can refuse a publish only by dropping the connection; MQTT 5 answers each with a failure PUBACK.
  const refusals = { 4: 'the broker closed the connection; reconnecting', 5: 'Publish error: Not authorized' } as const;
  for (const protocolVersion of [4, 5] as const) {
    test(`MQTT ${protocolVersion === 4 ? '3.1.1' : '5'}: the refusals are reported as errors and nothing counts as acknowledged`, async () => {
      const errors: string[] = [];
      const fleet = await startFleet({
        url: broker.url,
        organizationId: 'test-org',
        gateways: 1,
        devices: 2,
        rate: 0,
        messages: 10,
        protocolVersion,
        drainTimeoutMs: 100,
        tuidPrefix: `DENIED${protocolVersion}`,
        onError: (error) => errors.push(error.message),
      });
      await new Promise((resolve) => setTimeout(resolve, 300));
      const report = await fleet.stop();
      assert.equal(report.messagesAcked, 0);
      assert.ok(report.errors >= 1 && errors.includes(refusals[protocolVersion]), JSON.stringify(errors));
    });
  }
});
