/**
 * `tsx bench/relay/carriers.ts` (issue 18): the two carriers weighed for relaying stored uplinks between instances,
 * measured side by side on the same batches: PostgreSQL NOTIFY (payloads under 8000 bytes, so a batch goes as
 * chunks reassembled by the listener) and one MQTT message per batch through the broker. For batches of 1,000
 * messages (about 200 bytes of JSON each, as the simulator sends) it prints, per carrier, the time from the start
 * of sending a batch to its complete arrival (p50, p99) and the CPU this process spent per message (sender and
 * receiver together). Needs BENCH_DATABASE_URL; the broker is BENCH_MQTT_URL or 127.0.0.1:1883.
 */
import { randomBytes } from 'node:crypto';
import { connectAsync } from 'mqtt';
import pg from 'pg';
import type { StoredMessage } from '../../src/domain/messages/message-types.js';
import { decodeBatch, encodeBatches } from '../../src/integration/relay-batch.js';

/** A batch as one signed payload (no packet limit here), and whether one reads back. */
const relayKey = randomBytes(32);
const relayTopic = 'thingdesk-cluster/messages/bench-instance';
const encodeBatch = (origin: string, messages: readonly StoredMessage[]): string =>
  encodeBatches(relayKey, relayTopic, { origin, sentAt: Date.now() }, messages, Infinity).payloads[0]!.bytes.toString('utf8');
const readsBack = (payload: string): boolean => !('refused' in decodeBatch(relayKey, relayTopic, Buffer.from(payload)));

const batches = Number(process.env.BENCH_BATCHES ?? 50);
const batchSize = 1000;
const chunkBytes = 7_900;

function batch(seq: number): StoredMessage[] {
  return Array.from({ length: batchSize }, (_, i) => {
    const body = JSON.stringify({
      tsmId: 12100,
      tsmEv: 10,
      tsmTs: 1_793_000_000 + seq,
      tsmTuid: `BENCH-${i}`,
      temp: 21.5,
      humd: 40.1,
      batl: 87,
      carbonDioxide: 612,
    });
    return {
      organizationId: 'bench',
      tuid: `BENCH-${i}`,
      tsmId: 12100,
      tsmEv: 10,
      tsmTs: 1_793_000_000 + seq,
      gatewayTuid: 'GW-1',
      fingerprint: '0123456789abcdef',
      groupId: null,
      receivedAt: Date.now(),
      body,
      message: {},
      problems: [],
    };
  });
}

const quantile = (values: number[], q: number) =>
  [...values].sort((a, b) => a - b)[Math.min(values.length - 1, Math.floor(q * values.length))]!;

async function measure(
  name: string,
  send: (payload: string) => Promise<void>,
  arrived: (on: (payload: string) => void) => void,
): Promise<string> {
  const latencies: number[] = [];
  let resolveArrival: (() => void) | undefined;
  arrived((payload) => {
    if (!readsBack(payload)) throw new Error(`${name}: a batch arrived damaged`);
    resolveArrival?.();
  });
  const cpuStart = process.cpuUsage();
  for (let seq = 0; seq < batches; seq++) {
    const payload = encodeBatch('bench-instance', batch(seq));
    const started = performance.now();
    const arrival = new Promise<void>((resolve) => (resolveArrival = resolve));
    await send(payload);
    await arrival;
    latencies.push(performance.now() - started);
  }
  const cpu = process.cpuUsage(cpuStart);
  const cpuPerMessageUs = (cpu.user + cpu.system) / (batches * batchSize);
  return `${name.padEnd(34)} p50 ${quantile(latencies, 0.5).toFixed(1).padStart(7)} ms  p99 ${quantile(latencies, 0.99).toFixed(1).padStart(7)} ms  CPU ${cpuPerMessageUs.toFixed(2)} µs per message`;
}

async function main(): Promise<void> {
  const databaseUrl = process.env.BENCH_DATABASE_URL;
  if (!databaseUrl) {
    process.stderr.write('bench: skipped: BENCH_DATABASE_URL is not set\n');
    return;
  }
  const channel = `bench_relay_${randomBytes(3).toString('hex')}`;
  const sender = new pg.Client({ connectionString: databaseUrl });
  const listener = new pg.Client({ connectionString: databaseUrl });
  await sender.connect();
  await listener.connect();
  await listener.query(`listen ${channel}`);
  const mqttUrl = process.env.BENCH_MQTT_URL || 'mqtt://127.0.0.1:1883';
  const topic = `thingdesk-cluster/bench-${randomBytes(3).toString('hex')}`;
  const publisher = await connectAsync(mqttUrl, { protocolVersion: 5, clean: true });
  const subscriber = await connectAsync(mqttUrl, { protocolVersion: 5, clean: true });
  await subscriber.subscribeAsync(topic, { qos: 1 });
  try {
    const lines = [
      `Relaying ${batches} batches of ${batchSize} stored messages (${(Buffer.byteLength(encodeBatch('x', batch(0))) / 1024).toFixed(0)} KiB each)`,
      await measure(
        'PostgreSQL NOTIFY (chunks < 8000 B)',
        async (payload) => {
          // Chunks on character boundaries: each NOTIFY carries its index and the count, the listener joins them.
          const chunks: string[] = [];
          for (let at = 0; at < payload.length; at += chunkBytes / 2) chunks.push(payload.slice(at, at + chunkBytes / 2));
          await sender.query('begin');
          for (const [i, chunk] of chunks.entries())
            await sender.query('select pg_notify($1, $2)', [channel, `${i}/${chunks.length}|${chunk}`]);
          await sender.query('commit');
        },
        (on) => {
          let parts: string[] = [];
          listener.on('notification', (message) => {
            const text = message.payload ?? '';
            const bar = text.indexOf('|');
            const [index, count] = text.slice(0, bar).split('/').map(Number) as [number, number];
            parts[index] = text.slice(bar + 1);
            if (index === count - 1) {
              on(parts.join(''));
              parts = [];
            }
          });
        },
      ),
      await measure(
        'MQTT, one QoS 1 message per batch',
        async (payload) => {
          await publisher.publishAsync(topic, payload, { qos: 1 });
        },
        (on) => subscriber.on('message', (_topic, payload) => on(payload.toString('utf8'))),
      ),
      '',
    ];
    process.stdout.write(lines.join('\n'));
  } finally {
    await Promise.all([sender.end(), listener.end(), publisher.endAsync(), subscriber.endAsync()]);
  }
}

void main().catch((error: unknown) => {
  process.stderr.write(`bench/relay/carriers failed: ${(error as Error).stack ?? String(error)}\n`);
  process.exitCode = 1;
});
