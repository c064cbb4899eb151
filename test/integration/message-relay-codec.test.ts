/** The relay's batch format: what one instance encodes, another reads back exactly, or refuses whole. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { StoredMessage } from '../../src/domain/messages/message-types.js';
import { decodeBatch, encodeBatch } from '../../src/integration/message-relay.js';

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

test('a batch is read back exactly: bodies with line breaks, quotes and characters beyond ASCII, groups, problems, stored order', () => {
  const messages = [
    stored('T-1', '{"tsmId":1110,"note":"a \\"quoted\\"\\nline"}'),
    stored('T-2', '{\n  "tsmId": 1110,\n  "name": "Jyväskylä 🌡"\n}', { groupId: 'north', tsmEv: null }),
    stored('T-3', '{}', { problems: [{ path: 'temp', message: 'out of range' } as never] }),
    stored('T-4', '{}', { seq: 7, previousAt: 1_793_000_000_100 }),
    stored('T-4', '{}', { seq: 1, previousAt: null }),
  ];
  const decoded = decodeBatch(Buffer.from(encodeBatch('instance-a', messages)));
  assert.ok(decoded);
  assert.equal(decoded.origin, 'instance-a');
  assert.deepEqual(
    decoded.messages.map(({ message: _message, ...rest }) => rest),
    messages.map(({ message: _message, ...rest }) => rest),
  );
  assert.deepEqual(decoded.messages[1]!.message, messages[1]!.message, 'the parsed form on demand');
});

test('a batch cut short, padded or not a batch at all is refused whole', () => {
  const encoded = encodeBatch('instance-a', [stored('T-1', '{"tsmId":1110}')]);
  assert.equal(decodeBatch(Buffer.from(encoded.slice(0, -2))), undefined);
  assert.equal(decodeBatch(Buffer.from(`${encoded}}`)), undefined);
  assert.equal(decodeBatch(Buffer.from('{"o":"x","m":[]}')), undefined);
  assert.equal(decodeBatch(Buffer.from('not json\n{}')), undefined);
});
