/**
 * The relay's batch format: what one instance encodes, another reads back exactly, or refuses whole; a batch is
 * signed for its topic (issue 32, finding 6) and split to the broker's packet limit (finding 3).
 */
import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import type { StoredMessage } from '../../src/domain/messages/message-types.js';
import { decodeBatch, encodeBatches, type RelayBatch } from '../../src/integration/relay-batch.js';

const key = randomBytes(32);
const topic = 'thingdesk-cluster/messages/instance-a';
const head = { origin: 'instance-a', sentAt: 1_793_000_000_500 };

function stored(tuid: string, body: string, extra: Partial<StoredMessage> = {}): StoredMessage {
  return {
    organizationId: 'acme',
    tuid,
    tsmId: 1110,
    tsmEv: 10,
    tsmTs: 1_793_000_000,
    gatewayTuid: 'GW-1',
    fingerprint: 'abcdef0123456789',
    groupId: null,
    receivedAt: 1_793_000_000_123,
    body,
    message: JSON.parse(body) as Record<string, unknown>,
    problems: [],
    ...extra,
  };
}

const withoutParsed = (messages: readonly StoredMessage[]) => messages.map(({ message: _message, ...rest }: StoredMessage) => rest);

function decoded(payload: Buffer, withKey = key, onTopic = topic): RelayBatch {
  const batch = decodeBatch(withKey, onTopic, payload);
  assert.ok(!('refused' in batch), `refused: ${JSON.stringify(batch)}`);
  return batch;
}

test('a batch is read back exactly: bodies with line breaks, quotes and characters beyond ASCII, groups, problems, stored order', () => {
  const messages = [
    stored('T-1', '{"tsmId":1110,"note":"a \\"quoted\\"\\nline"}'),
    stored('T-2', '{\n  "tsmId": 1110,\n  "name": "Jyväskylä 🌡"\n}', { groupId: 'north', tsmEv: null }),
    stored('T-3', '{}', { problems: [{ path: 'temp', message: 'out of range' } as never] }),
    stored('T-4', '{}', { seq: 7, previousAt: 1_793_000_000_100 }),
    stored('T-4', '{}', { seq: 1, previousAt: null }),
  ];
  const { payloads, unsent } = encodeBatches(key, topic, head, messages, 1_048_576);
  assert.equal(payloads.length, 1);
  assert.deepEqual(unsent, []);
  const batch = decoded(payloads[0]!.bytes);
  assert.equal(batch.origin, 'instance-a');
  assert.equal(batch.sentAt, head.sentAt);
  assert.deepEqual(withoutParsed(batch.messages), withoutParsed(messages));
  assert.deepEqual(batch.messages[1]!.message, messages[1]!.message, 'the parsed form on demand');
});

test('a batch cut short, padded, unsigned, signed with another key or for another topic is refused whole', () => {
  const payload = encodeBatches(key, topic, head, [stored('T-1', '{"tsmId":1110}')], 1_048_576).payloads[0]?.bytes;
  const refused = (bytes: Buffer, withKey = key, onTopic = topic) => 'refused' in decodeBatch(withKey, onTopic, bytes);
  assert.ok(refused(payload!.subarray(0, -2)));
  assert.ok(refused(Buffer.concat([payload!, Buffer.from('}')])));
  assert.ok(refused(payload!.subarray(payload!.indexOf(0x0a) + 1)), 'the same batch without its signature');
  assert.ok(refused(payload!, randomBytes(32)), 'signed with another key');
  assert.ok(refused(payload!, key, 'thingdesk-cluster/messages/instance-b'), "replayed on another instance's topic");
  assert.ok(refused(Buffer.from('{"o":"x","m":[]}')));
  assert.ok(refused(Buffer.from('not json\n{}')));
});

test('a batch is split to the packet limit, in stored order; a message that fits no packet is left out', () => {
  const body = (bytes: number) => JSON.stringify({ tsmId: 1110, pad: 'x'.repeat(bytes) });
  const messages = [
    ...Array.from({ length: 16 }, (_, i) => stored(`T-${i % 3}`, body(240_000), { seq: i + 1, previousAt: 1 })),
    stored('HUGE', body(1_100_000), { seq: 1, previousAt: null }),
    stored('T-9', body(10), { seq: 1, previousAt: null }),
  ];
  const limit = 1_048_576;
  const { payloads, unsent } = encodeBatches(key, topic, head, messages, limit);
  assert.deepEqual(
    unsent.map((m) => m.tuid),
    ['HUGE'],
  );
  for (const { bytes } of payloads) assert.ok(bytes.length + topic.length + 16 <= limit, `a packet of ${bytes.length} bytes`);
  assert.equal(payloads.length, 4, 'four messages of 240 KB to a packet of 1 MiB');
  const received = payloads.flatMap(({ bytes }) => decoded(bytes).messages);
  assert.deepEqual(withoutParsed(received), withoutParsed(messages.filter((m) => m.tuid !== 'HUGE')));
});
