/**
 * The pipelined consumer against a broker that ignores the Receive Maximum it was given. Mosquitto 2.0 was seen
 * doing so under load on a shared subscription (hundreds of thousands of uplinks handed to one instance, its
 * memory past 2 GB); a consumer that takes whatever arrives lets any broker, or anything posing as one, decide how
 * much memory the platform uses. The broker here is a socket speaking just enough MQTT 5, so that it can misbehave.
 */
import assert from 'node:assert/strict';
import { createServer, type Server, type Socket } from 'node:net';
import { after, test } from 'node:test';
import mqttPacket, { type Packet } from 'mqtt-packet';
import pino from 'pino';
import { PipelinedConsumer } from '../../src/mqtt/pipelined-consumer.js';
import { eventually } from '../helpers/mqtt-clients.js';

const servers: Server[] = [];
after(() => Promise.all(servers.map((server) => new Promise((resolve) => server.close(resolve)))));

interface FloodingBroker {
  url: string;
  /** PUBACKs the consumer sent, by packet id. */
  acknowledged: number[];
  /** Publishes the broker has written so far. */
  sent(): number;
  /** Connections accepted so far. */
  connections(): number;
}

interface BrokerAnswers {
  connackProperties?: Record<string, unknown>;
  /** The SUBACK's reason code for the one subscription (1: QoS 1 granted). */
  granted?: number;
}

/** Accepts a consumer, answers CONNACK and SUBACK, then writes `publishes` QoS 1 messages at once. */
async function floodingBroker(publishes: number, answers: BrokerAnswers = {}): Promise<FloodingBroker> {
  const acknowledged: number[] = [];
  let sent = 0;
  let connections = 0;
  const server = createServer((socket: Socket) => {
    connections += 1;
    const parser = mqttPacket.parser({ protocolVersion: 5 });
    const write = (packet: Packet) => socket.write(mqttPacket.generate(packet, { protocolVersion: 5 }));
    parser.on('packet', (packet: Packet) => {
      if (packet.cmd === 'connect') write({ cmd: 'connack', sessionPresent: false, reasonCode: 0, properties: answers.connackProperties });
      if (packet.cmd === 'subscribe') {
        write({ cmd: 'suback', messageId: packet.messageId, granted: [answers.granted ?? 1] });
        if ((answers.granted ?? 1) >= 0x80) return;
        const payload = Buffer.alloc(1024, 'x');
        const flood = () => {
          // Written as fast as the socket takes them: a broker that respected the limit would stop at it.
          while (sent < publishes) {
            sent += 1;
            const fits = socket.write(
              mqttPacket.generate(
                { cmd: 'publish', topic: 'thingdesk/o/up/GW', payload, qos: 1, messageId: (sent % 65_535) + 1, dup: false, retain: false },
                { protocolVersion: 5 },
              ),
            );
            if (!fits) return void socket.once('drain', flood);
          }
        };
        flood();
      }
      if (packet.cmd === 'puback') acknowledged.push(packet.messageId!);
      if (packet.cmd === 'pingreq') write({ cmd: 'pingresp' });
    });
    socket.on('data', (chunk) => parser.parse(chunk));
    socket.on('error', () => undefined);
  });
  servers.push(server);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  if (typeof address !== 'object' || !address) throw new Error('no port');
  return { url: `mqtt://127.0.0.1:${address.port}`, acknowledged, sent: () => sent, connections: () => connections };
}

test('a broker that sends past the Receive Maximum is read no further until uplinks are acknowledged', async () => {
  const broker = await floodingBroker(5000);
  const pending: (() => void)[] = [];
  const consumer = new PipelinedConsumer({
    url: broker.url,
    clientId: 'test-slot-0',
    sessionExpiryS: 60,
    receiveMaximum: 100,
    maxPacketSize: 1 << 20,
    subscription: '$share/test/thingdesk/+/up/+',
    logger: pino({ level: 'silent' }),
    // Commits that do not finish until the test lets them.
    onMessage: () => new Promise<void>((resolve) => pending.push(resolve)),
  });
  try {
    await consumer.start();
    await eventually(() => (consumer.inFlight >= 100 ? true : undefined), 5000, '100 uplinks in flight');
    await new Promise((resolve) => setTimeout(resolve, 300));
    // What one read of the socket carried may go past the limit; the rest stays in the kernel and the broker.
    assert.ok(
      consumer.inFlight < 200,
      `${consumer.inFlight} uplinks taken in with a Receive Maximum of 100 (the broker wrote ${broker.sent()})`,
    );
    assert.equal(broker.acknowledged.length, 0);

    // Committing lets the consumer read on; every uplink arrives and is acknowledged once, in order.
    const commitAll = setInterval(() => pending.splice(0).forEach((resolve) => resolve()), 5);
    try {
      await eventually(() => (broker.acknowledged.length >= 5000 ? true : undefined), 10_000, 'every uplink acknowledged');
    } finally {
      clearInterval(commitAll);
    }
    assert.deepEqual(broker.acknowledged.slice(0, 3), [2, 3, 4]);
    assert.equal(new Set(broker.acknowledged).size, 5000);
    assert.equal(consumer.inFlight, 0);
  } finally {
    pending.splice(0).forEach((resolve) => resolve());
    await consumer.stop();
  }
});

/** A consumer on `url` whose warnings are collected. */
function watchedConsumer(url: string) {
  const warnings: string[] = [];
  const logger = pino(
    { level: 'warn' },
    { write: (line: string) => void warnings.push(String((JSON.parse(line) as { finding?: string }).finding ?? '')) },
  );
  const consumer = new PipelinedConsumer({
    url,
    clientId: 'test-slot-1',
    sessionExpiryS: 86_400,
    receiveMaximum: 100,
    maxPacketSize: 1 << 20,
    subscription: '$share/test/thingdesk/+/up/+',
    logger,
    onMessage: async () => undefined,
  });
  return { consumer, warnings };
}

test('broker settings that lose uplinks are named at start-up; a broker that keeps what is needed draws no warning', async () => {
  const lossy = watchedConsumer(
    (await floodingBroker(0, { connackProperties: { sessionExpiryInterval: 300, maximumQoS: 0, sharedSubscriptionAvailable: false } })).url,
  );
  try {
    await lossy.consumer.start();
    assert.equal(lossy.warnings.length, 3, lossy.warnings.join('\n'));
    assert.match(lossy.warnings.join('\n'), /does not offer shared subscriptions/);
    assert.match(lossy.warnings.join('\n'), /QoS 0 only/);
    assert.match(lossy.warnings.join('\n'), /keeps a consumer session 300 s, not the 86400 s/);
  } finally {
    await lossy.consumer.stop();
  }
  const sound = watchedConsumer(
    (await floodingBroker(0, { connackProperties: { sessionExpiryInterval: 86_400, sharedSubscriptionAvailable: true } })).url,
  );
  try {
    await sound.consumer.start();
    assert.deepEqual(sound.warnings, []);
  } finally {
    await sound.consumer.stop();
  }
});

test('a subscription granted QoS 0 is warned about; one the broker refuses fails the start instead of looking ready', async () => {
  const downgraded = watchedConsumer((await floodingBroker(0, { granted: 0 })).url);
  try {
    await downgraded.consumer.start();
    assert.deepEqual(downgraded.warnings.length, 1);
    assert.match(downgraded.warnings[0]!, /granted the uplink subscription QoS 0 only/);
  } finally {
    await downgraded.consumer.stop();
  }
  const refused = watchedConsumer((await floodingBroker(0, { granted: 0x87 })).url);
  try {
    const broker = await floodingBroker(0, { granted: 0x87 });
    const again = watchedConsumer(broker.url);
    await assert.rejects(again.consumer.start(), /refused the uplink subscription \(reason 135\)/);
    assert.equal(again.consumer.ready, false);
    // A failed start leaves nothing behind that reconnects on its own.
    const connectionsBefore = broker.connections();
    await new Promise((resolve) => setTimeout(resolve, 1500));
    assert.equal(broker.connections(), connectionsBefore, 'no reconnect after a failed start');
    await assert.rejects(refused.consumer.start(), /refused the uplink subscription \(reason 135\)/);
  } finally {
    await refused.consumer.stop();
  }
});
