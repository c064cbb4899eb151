import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { test } from 'node:test';
import { sealSecret, unsealSecret } from '../../../src/domain/identity/secrets.js';

const key = randomBytes(32).toString('base64');

test('a sealed secret opens with its key, and its text never shows the secret', () => {
  const sealed = sealSecret(key, 'gateway-password-1');
  assert.ok(!sealed.includes('gateway-password-1'));
  assert.notEqual(sealSecret(key, 'gateway-password-1'), sealed, 'a fresh nonce each time');
  assert.equal(unsealSecret(key, sealed), 'gateway-password-1');
});

test('another key, an altered value or a foreign text is refused, never read wrong', () => {
  const sealed = sealSecret(key, 'gateway-password-1');
  assert.throws(() => unsealSecret(randomBytes(32).toString('base64'), sealed));
  const parts = sealed.split('$');
  const data = Buffer.from(parts[3]!, 'base64url');
  data[0]! ^= 1;
  assert.throws(() => unsealSecret(key, [...parts.slice(0, 3), data.toString('base64url')].join('$')));
  assert.throws(() => unsealSecret(key, '$argon2id$v=19$m=19456'), /not a sealed secret/);
});
