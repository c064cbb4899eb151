/**
 * /metrics is not open to the network by default (issue 32, finding 13c): on the API port without METRICS_TOKEN it
 * answers only a peer on this host (the socket's address, not X-Forwarded-For, and not a request a proxy relayed);
 * METRICS_TOKEN opens it to any peer that sends the token, compared without leaking its length.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

const scrape = (server: TestApp, remoteAddress: string, headers: Record<string, string> = {}) =>
  server.app.http.inject({ method: 'GET', url: '/metrics', remoteAddress, headers });

describe('/metrics on the API port without METRICS_TOKEN', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ TRUST_PROXY: 'loopback' });
  });
  after(() => server?.stop());

  test('a peer on another host is refused with 403 and told how to open it', async () => {
    for (const peer of ['203.0.113.5', '10.0.0.7', '::ffff:192.0.2.1', '2001:db8::1']) {
      const response = await scrape(server, peer);
      assert.equal(response.statusCode, 403, peer);
      assert.equal(response.json().code, 'FORBIDDEN');
      assert.match(response.json().message, /METRICS_TOKEN/);
      assert.doesNotMatch(response.body, /thingdesk_/);
    }
  });

  test('a peer on this host is answered (IPv4, IPv6, mapped), over a real socket too', async () => {
    for (const peer of ['127.0.0.1', '127.0.0.53', '::1', '::ffff:127.0.0.1']) {
      const response = await scrape(server, peer);
      assert.equal(response.statusCode, 200, peer);
      assert.match(response.body, /thingdesk_build_info/);
    }
    assert.equal((await fetch(server.url('/metrics'))).status, 200);
  });

  test('X-Forwarded-For changes nothing for an outsider, and makes a relayed request from a local proxy an outsider', async () => {
    assert.equal((await scrape(server, '203.0.113.5', { 'x-forwarded-for': '127.0.0.1' })).statusCode, 403);
    const relayed = await fetch(server.url('/metrics'), { headers: { 'x-forwarded-for': '203.0.113.5' } });
    assert.equal(relayed.status, 403);
    assert.equal((await scrape(server, '127.0.0.1', { forwarded: 'for=203.0.113.5' })).statusCode, 403);
  });
});

describe('/metrics on the API port with METRICS_TOKEN', () => {
  const token = 'scrape-token-0123456789abcdef';
  let server: TestApp;
  before(async () => {
    server = await startTestApp({ METRICS_TOKEN: token });
  });
  after(() => server?.stop());

  test('any peer with the token is answered; without it, with a prefix or a longer text, 401', async () => {
    assert.equal((await scrape(server, '203.0.113.5', { authorization: `Bearer ${token}` })).statusCode, 200);
    for (const sent of [undefined, token.slice(0, 8), `${token}x`, token.toUpperCase()]) {
      const response = await scrape(server, '203.0.113.5', sent === undefined ? {} : { authorization: `Bearer ${sent}` });
      assert.equal(response.statusCode, 401, String(sent));
    }
  });
});
