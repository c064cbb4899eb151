/**
 * TRUST_PROXY: behind a reverse proxy every request comes from the proxy's address, so the per-address limit and
 * the logs must read the client from X-Forwarded-For, but only when the proxy sending it is trusted; otherwise
 * any client could name a new address per request and never be limited.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { loadConfig } from '../../src/config/config.js';
import { ManualClock } from '../../src/domain/clock.js';
import { ConfigError } from '../../src/config/config-error.js';
import { cleanupStores } from '../helpers/databases.js';
import { startTestApp } from '../helpers/test-app.js';

after(cleanupStores);

/** A clock that stands still: the limits count in minutes aligned to the clock, and a slow run may cross one. */
const stillClock = () => ({ clock: new ManualClock(Date.now()) });

/** Statuses of token requests with bad credentials, each claiming to come from `forwardedFor` (if given). */
async function tokenAttempts(url: string, forwardedFor: readonly (string | undefined)[]): Promise<number[]> {
  const statuses: number[] = [];
  for (const address of forwardedFor) {
    const response = await fetch(url, {
      method: 'POST',
      headers: { 'content-type': 'application/json', ...(address && { 'x-forwarded-for': address }) },
      body: JSON.stringify({ client_id: 'x', client_secret: 'y' }),
    });
    statuses.push(response.status);
  }
  return statuses;
}

describe('the client address behind a reverse proxy', () => {
  test('without TRUST_PROXY a forged X-Forwarded-For changes nothing: every request counts against the peer', async () => {
    const server = await startTestApp({ RATE_LIMIT_PER_ADDRESS: '3' }, stillClock());
    try {
      const statuses = await tokenAttempts(server.url('/api/v1/auth/client-token'), [
        '198.51.100.1',
        '198.51.100.2',
        '198.51.100.3',
        '198.51.100.4',
      ]);
      assert.deepEqual(statuses, [401, 401, 401, 429]);
    } finally {
      await server.stop();
    }
  });

  test('a trusted proxy: each forwarded client has its own budget; the proxy itself is not the client', async () => {
    const server = await startTestApp({ RATE_LIMIT_PER_ADDRESS: '3', TRUST_PROXY: '127.0.0.1' }, stillClock());
    try {
      const url = server.url('/api/v1/auth/client-token');
      assert.deepEqual(await tokenAttempts(url, ['203.0.113.7', '203.0.113.7', '203.0.113.7', '203.0.113.7']), [401, 401, 401, 429]);
      // Another client behind the same proxy is not held back by the first one's requests.
      assert.deepEqual(await tokenAttempts(url, ['203.0.113.8', '203.0.113.8']), [401, 401]);
      // A client that forges an address in front of the proxy's gets the address the proxy saw (the last hop).
      assert.deepEqual(await tokenAttempts(url, ['10.9.9.9, 203.0.113.7']), [429]);
    } finally {
      await server.stop();
    }
  });

  test('a proxy range that does not include the peer is not trusted', async () => {
    const server = await startTestApp({ RATE_LIMIT_PER_ADDRESS: '2', TRUST_PROXY: '10.0.0.0/8' }, stillClock());
    try {
      assert.deepEqual(
        await tokenAttempts(server.url('/api/v1/auth/client-token'), ['203.0.113.1', '203.0.113.2', '203.0.113.3']),
        [401, 401, 429],
      );
    } finally {
      await server.stop();
    }
  });

  test('TRUST_PROXY takes addresses, CIDR ranges and the named ranges; anything else names the variable', () => {
    assert.deepEqual(loadConfig({ TRUST_PROXY: ' loopback, 10.0.0.0/8,::1 , 192.0.2.10, fd00::/8 ' }).trustProxy, [
      'loopback',
      '10.0.0.0/8',
      '::1',
      '192.0.2.10',
      'fd00::/8',
    ]);
    assert.deepEqual(loadConfig({}).trustProxy, []);
    for (const bad of ['true', '*', '10.0.0.0/33', '::1/129', '10.0.0.0/8/1', 'proxy.example', '10.0.0.256', '10.0.0.0/x']) {
      assert.throws(
        () => loadConfig({ TRUST_PROXY: bad }),
        (error: unknown) => error instanceof ConfigError && error.variable === 'TRUST_PROXY',
        bad,
      );
    }
  });
});
