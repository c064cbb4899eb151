/** A WebSocket close reason may not exceed 123 bytes (RFC 6455): a longer one throws in `ws` and leaves the socket open. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import type { SessionEndReason } from '../../../src/domain/events.js';
import { relayLost, sessionEnd, slowConsumer } from '../../../src/http/graphql/live-streams.js';

const reasons: (SessionEndReason | undefined)[] = ['logout', 'refresh token reused', 'user deleted', 'role changed', undefined];

test('every reason the platform closes a live stream with fits a WebSocket close frame', () => {
  for (const end of [slowConsumer, relayLost, ...reasons.map(sessionEnd)]) {
    assert.ok(Buffer.byteLength(end.message) <= 123, `${Buffer.byteLength(end.message)} bytes: ${end.message}`);
  }
});
