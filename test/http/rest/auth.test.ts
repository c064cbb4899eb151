import assert from 'node:assert/strict';
import { generateKeyPairSync } from 'node:crypto';
import { after, before, describe, test } from 'node:test';
import { SignJWT, createLocalJWKSet, decodeProtectedHeader, jwtVerify } from 'jose';
import { ManualClock } from '../../../src/domain/clock.js';
import { createApiClient, revokeApiClient } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../../helpers/databases.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, testBootstrap, type TestApp } from '../../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

const credentials = { client_id: testBootstrap.BOOTSTRAP_CLIENT_ID, client_secret: testBootstrap.BOOTSTRAP_CLIENT_SECRET };

describe('REST client tokens (seed 000 part 5, SPEC section 3)', () => {
  let server: TestApp;
  let clock: ManualClock;
  let rest: RestClient;
  before(async () => {
    clock = new ManualClock(Date.now());
    server = await startTestApp({}, { clock });
    rest = new RestClient(server);
    await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: 'AUTH-1', batl: 50 }]);
  });
  after(() => server?.stop());

  const issue = (body: unknown) => rest.post('/auth/client-token', body, { auth: false });

  test('a token is issued for a valid id and secret: {data:{token, expires_in: 900}}, an EdDSA JWT with a kid in the JWKS', async () => {
    const response = await issue(credentials);
    assert.equal(response.status, 200);
    assert.deepEqual(Object.keys(response.body.data).sort(), ['expires_in', 'token']);
    assert.equal(response.body.data.expires_in, 900);
    const header = decodeProtectedHeader(response.body.data.token);
    assert.equal(header.alg, 'EdDSA');
    const jwks = await (await fetch(server.url('/.well-known/jwks.json'))).json();
    const { payload } = await jwtVerify(response.body.data.token, createLocalJWKSet(jwks as never), { currentDate: new Date(clock.now()) });
    assert.equal(payload.sub, credentials.client_id);
    assert.equal(payload.aud, 'rest');
    assert.equal(payload.exp! - payload.iat!, 900);
  });

  test('an unknown client id and a wrong secret get the same 401', async () => {
    const wrongSecret = await issue({ ...credentials, client_secret: 'not-the-secret-at-all' });
    const unknownId = await issue({ ...credentials, client_id: 'nobody' });
    assert.equal(wrongSecret.status, 401);
    assert.deepEqual(wrongSecret.body, unknownId.body);
    assert.deepEqual(wrongSecret.body, {
      statusCode: 401,
      error: 'Unauthorized',
      message: 'Invalid client credentials.',
      code: 'UNAUTHENTICATED',
    });
    assert.equal(wrongSecret.headers.get('www-authenticate'), 'Bearer');
  });

  test('missing or mistyped fields are 400 naming each field', async () => {
    const response = await issue({ client_id: 42 });
    assert.equal(response.status, 400);
    assert.deepEqual(response.body.errors.map((e: { field: string }) => e.field).sort(), ['client_id', 'client_secret']);
  });

  test('several tokens of one client are valid at once', async () => {
    const first = (await issue(credentials)).body.data.token;
    clock.advance(1000);
    const second = (await issue(credentials)).body.data.token;
    assert.notEqual(first, second);
    for (const token of [first, second]) {
      assert.equal((await rest.get('/things/AUTH-1', { headers: { authorization: `Bearer ${token}` } })).status, 200);
    }
  });

  test('a token expires after 15 minutes', async () => {
    const token = (await issue(credentials)).body.data.token;
    const call = () => rest.get('/things/AUTH-1', { headers: { authorization: `Bearer ${token}` } });
    clock.advance(899_000);
    assert.equal((await call()).status, 200);
    clock.advance(2_000);
    const expired = await call();
    assert.equal(expired.status, 401);
    assert.equal(expired.body.statusCode, 401);
    assert.equal(expired.body.message, 'The token has expired.');
    assert.equal(expired.headers.get('www-authenticate'), 'Bearer');
  });

  test('missing, malformed, tampered, unsigned and foreign-key tokens are 401', async () => {
    const good = (await issue(credentials)).body.data.token as string;
    const [header, payload, signature] = good.split('.');
    const tamperedPayload = Buffer.from(
      JSON.stringify({ ...JSON.parse(Buffer.from(payload!, 'base64url').toString()), org: 'other' }),
    ).toString('base64url');
    const unsigned = `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${payload}.`;
    const { privateKey } = generateKeyPairSync('ed25519');
    const kid = decodeProtectedHeader(good).kid!;
    const foreign = await new SignJWT({ org: 'acme' })
      .setProtectedHeader({ alg: 'EdDSA', kid })
      .setSubject(credentials.client_id)
      .setIssuer('thingdesk')
      .setAudience('rest')
      .setIssuedAt(Math.floor(clock.now() / 1000))
      .setExpirationTime(Math.floor(clock.now() / 1000) + 600)
      .sign(privateKey);
    const cases: [string, Record<string, string>][] = [
      ['no header', {}],
      ['not bearer', { authorization: `Basic ${good}` }],
      ['garbage', { authorization: 'Bearer not.a.jwt' }],
      ['tampered payload', { authorization: `Bearer ${header}.${tamperedPayload}.${signature}` }],
      ['alg none', { authorization: `Bearer ${unsigned}` }],
      ['signed by another key', { authorization: `Bearer ${foreign}` }],
    ];
    for (const [name, headers] of cases) {
      const response = await rest.get('/things/AUTH-1', { headers, auth: false });
      assert.equal(response.status, 401, name);
      assert.equal(response.body.code, 'UNAUTHENTICATED', name);
      assert.equal(response.headers.get('www-authenticate'), 'Bearer', name);
    }
  });

  test('revoking a client ends its tokens at once and refuses new ones', async () => {
    const deps = { store: server.app.store, clock: server.app.clock, events: server.app.events };
    const created = await createApiClient(deps, { organizationId: 'acme', name: 'to revoke' });
    const client = new RestClient(server, { client_id: created.client.clientId, client_secret: created.clientSecret });
    assert.equal((await client.get('/things/AUTH-1')).status, 200);
    await revokeApiClient(deps, { clientId: created.client.clientId });
    const after = await client.get('/things/AUTH-1');
    assert.equal(after.status, 401);
    assert.equal(after.body.message, 'The API client has been revoked.');
    assert.equal((await issue({ client_id: created.client.clientId, client_secret: created.clientSecret })).status, 401);
  });
});

describe('revocation made by another instance (or the CLI)', () => {
  test('is seen within about a second', async () => {
    const server = await startTestApp();
    try {
      const deps = { store: server.app.store, clock: server.app.clock };
      const created = await createApiClient(deps, { organizationId: 'acme', name: 'elsewhere' });
      const client = new RestClient(server, { client_id: created.client.clientId, client_secret: created.clientSecret });
      assert.equal((await client.get('/things')).status, 200);
      // No event: this is what another instance sees when the CLI revokes the client.
      await revokeApiClient(deps, { clientId: created.client.clientId });
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.equal((await client.get('/things')).status, 401);
    } finally {
      await server.stop();
    }
  });
});
