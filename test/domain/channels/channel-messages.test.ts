/** Notification subjects are one line, whatever a channel's name or a rule's path holds. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { oneLine, testMessage } from '../../../src/domain/channels/channel-messages.js';

test('a line break or other control character in a channel name does not reach the subject', () => {
  const subject = testMessage('ops\r\nBcc: everyone@example.com\u0000').subject;
  assert.equal(subject, '[thingdesk] Test notification for channel ops Bcc: everyone@example.com ');
  assert.ok(![...subject].some((c) => c.charCodeAt(0) < 0x20), subject);
});

test('plain text is left as it is', () => {
  assert.equal(oneLine('[thingdesk] OPEN critical: temp > 30 on ACME-1'), '[thingdesk] OPEN critical: temp > 30 on ACME-1');
});
