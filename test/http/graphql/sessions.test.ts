import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { decodeJwt } from 'jose';
import { ManualClock } from '../../../src/domain/clock.js';
import { createOrganization, createUser } from '../../../src/domain/identity/identity-service.js';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient, errorCodes } from '../../helpers/graphql-client.js';
import { RestClient } from '../../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const refreshMutation =
  'mutation R($input: RefreshTokenInput!) { refreshToken(refreshTokenInput: $input) { accessToken expiresIn refreshExpiresIn refreshToken } }';
const me = '{ me { id email role organizationId } }';

describe('GraphQL sessions (seed 001, SPEC section 4)', () => {
  let server: TestApp;
  let clock: ManualClock;
  before(async () => {
    clock = new ManualClock(Date.now());
    server = await startTestApp({}, { clock });
    const deps = { store: server.app.store, clock: server.app.clock };
    await createOrganization(deps, { name: 'Other Org', id: 'other' });
    await createUser(deps, { organizationId: 'other', email: 'manager@acme.test', password: 'another-password', role: 'Viewer' });
    await createUser(deps, { organizationId: 'acme', email: 'throttled@acme.test', password: 'throttled-password', role: 'Viewer' });
  });
  after(() => server?.stop());

  const refresh = (client: GraphqlClient, refreshToken = client.refreshToken!, organizationId = client.organizationId!) =>
    client.request(refreshMutation, { input: { organizationId, refreshToken } }, { token: null });

  test('login answers the seed selection: tokens, lifetimes 900 / 43200 and the organization id', async () => {
    const client = new GraphqlClient(server);
    const response = await client.login();
    assert.equal(response.status, 200);
    const login = response.body.data.login;
    assert.deepEqual(Object.keys(login).sort(), ['accessToken', 'expiresIn', 'organizationId', 'refreshExpiresIn', 'refreshToken']);
    assert.equal(login.expiresIn, 900);
    assert.equal(login.refreshExpiresIn, 43200);
    assert.equal(login.organizationId, 'acme');
    const claims = decodeJwt(login.accessToken);
    assert.equal(claims.aud, 'graphql');
    assert.equal(claims.role, 'Manager');
    assert.equal(claims.org, 'acme');
    assert.equal(typeof claims.sid, 'string');
    assert.equal(claims.exp! - claims.iat!, 900);
    const refreshClaims = decodeJwt(login.refreshToken);
    assert.equal(refreshClaims.exp! - refreshClaims.iat!, 43200);
    assert.equal(refreshClaims.sid, claims.sid);
    const who = await client.request(me);
    assert.deepEqual(who.body.data.me, { id: claims.sub, email: 'manager@acme.test', role: 'MANAGER', organizationId: 'acme' });
  });

  test('the same user e-mail in two organizations signs in to the one named', async () => {
    const client = new GraphqlClient(server);
    await client.login({ organizationName: 'other org', password: 'another-password' });
    assert.equal(client.organizationId, 'other');
    assert.equal((await client.request(me)).body.data.me.role, 'VIEWER');
  });

  test('login failures answer the same error whatever was wrong', async () => {
    const cases = [
      { email: 'nobody@acme.test' },
      { password: 'wrong-password' },
      { organizationName: 'No Such Org' },
      { email: 'manager@acme.test', organizationName: 'Other Org' },
    ];
    const answers = [];
    for (const input of cases) {
      const response = await new GraphqlClient(server).login(input);
      answers.push({
        status: response.status,
        errors: response.body.errors?.map((e) => ({ message: e.message, code: e.extensions?.code })),
        data: response.body.data,
      });
    }
    for (const answer of answers) assert.deepEqual(answer, answers[0]);
    assert.deepEqual(answers[0]!.errors, [{ message: 'Invalid e-mail, password or organization.', code: 'UNAUTHENTICATED' }]);
  });

  test('repeated failures for one account are throttled, for unknown accounts alike; a success clears the count', async () => {
    for (const email of ['nobody-at-all@acme.test', 'throttled@acme.test']) {
      const codes: string[] = [];
      for (let i = 0; i < 6; i++) codes.push(errorCodes(await new GraphqlClient(server).login({ email, password: 'wrong-password' }))[0]!);
      assert.deepEqual(
        codes,
        ['UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED', 'UNAUTHENTICATED', 'RATE_LIMITED'],
        email,
      );
    }
    // Blocked even with the right password, until the block expires; other accounts are not affected.
    const throttled = { email: 'throttled@acme.test', password: 'throttled-password' };
    assert.deepEqual(errorCodes(await new GraphqlClient(server).login(throttled)), ['RATE_LIMITED']);
    assert.equal((await new GraphqlClient(server).login()).status, 200);
    clock.advance(15 * 60_000 + 1000);
    const client = new GraphqlClient(server);
    assert.equal((await client.login(throttled)).status, 200);
    assert.ok(client.accessToken);
  });

  test('refresh rotates: the new pair works, each refresh token works once', async () => {
    const client = new GraphqlClient(server);
    await client.login();
    const first = await refresh(client);
    assert.equal(first.status, 200);
    const pair = first.body.data.refreshToken;
    assert.deepEqual(Object.keys(pair).sort(), ['accessToken', 'expiresIn', 'refreshExpiresIn', 'refreshToken']);
    assert.notEqual(pair.refreshToken, client.refreshToken);
    assert.equal((await client.request(me, undefined, { token: pair.accessToken })).status, 200);
    const second = await refresh(client, pair.refreshToken);
    assert.equal(second.status, 200);
  });

  test('presenting a used refresh token ends the whole session (theft detection)', async () => {
    const client = new GraphqlClient(server);
    await client.login();
    const stolen = client.refreshToken!;
    const legit = (await refresh(client)).body.data.refreshToken;
    const reuse = await refresh(client, stolen);
    assert.deepEqual(errorCodes(reuse), ['UNAUTHENTICATED']);
    assert.match(reuse.body.errors![0]!.message, /already used/);
    // Both the rotated tokens and the original access token are now dead.
    assert.deepEqual(errorCodes(await refresh(client, legit.refreshToken)), ['UNAUTHENTICATED']);
    assert.deepEqual(errorCodes(await client.request(me, undefined, { token: legit.accessToken })), ['UNAUTHENTICATED']);
    assert.deepEqual(errorCodes(await client.request(me)), ['UNAUTHENTICATED']);
  });

  test('refresh with the wrong organizationId fails and changes nothing', async () => {
    const client = new GraphqlClient(server);
    await client.login();
    assert.deepEqual(errorCodes(await refresh(client, client.refreshToken, 'other')), ['UNAUTHENTICATED']);
    assert.equal((await refresh(client)).status, 200, 'the token is still good for the right organization');
  });

  test('refresh needs no Authorization header, and works with an expired access token still sent', async () => {
    const client = new GraphqlClient(server);
    await client.login();
    clock.advance(901_000);
    assert.deepEqual(errorCodes(await client.request(me)), ['UNAUTHENTICATED']);
    const response = await client.request(refreshMutation, {
      input: { organizationId: client.organizationId, refreshToken: client.refreshToken },
    });
    assert.equal(response.status, 200, JSON.stringify(response.body));
  });

  test('an access token expires after 15 minutes, a refresh token after 12 hours', async () => {
    const client = new GraphqlClient(server);
    await client.login();
    clock.advance(899_000);
    assert.equal((await client.request(me)).status, 200);
    clock.advance(2_000);
    const expired = await client.request(me);
    assert.deepEqual(errorCodes(expired), ['UNAUTHENTICATED']);
    assert.match(expired.body.errors![0]!.message, /expired/);
    clock.advance(43_200_000 - 901_000 + 1000);
    assert.deepEqual(errorCodes(await refresh(client)), ['UNAUTHENTICATED']);
  });

  test('logout ends the session: its access and refresh tokens stop working at once', async () => {
    const client = new GraphqlClient(server);
    await client.login();
    const logout = await client.request('mutation { logout { success } }');
    assert.deepEqual(logout.body.data, { logout: { success: true } });
    assert.deepEqual(errorCodes(await client.request(me)), ['UNAUTHENTICATED']);
    assert.deepEqual(errorCodes(await refresh(client)), ['UNAUTHENTICATED']);
  });

  test('a REST client token is refused on GraphQL, and a GraphQL access token on REST', async () => {
    const rest = new RestClient(server);
    const restToken = await rest.accessToken();
    assert.deepEqual(errorCodes(await new GraphqlClient(server).request(me, undefined, { token: restToken })), ['UNAUTHENTICATED']);
    const client = new GraphqlClient(server);
    await client.login();
    const refused = await rest.get('/things', { headers: { authorization: `Bearer ${client.accessToken}` } });
    assert.equal(refused.status, 401);
    // A refresh token is no access token either.
    assert.deepEqual(errorCodes(await client.request(me, undefined, { token: client.refreshToken })), ['UNAUTHENTICATED']);
  });
});

describe('sessions across instances', () => {
  test('a logout on one instance is seen by another within about a second', async () => {
    const { createSqliteUrl } = await import('../../helpers/databases.js');
    const url = createSqliteUrl();
    const first = await startTestApp({ DATABASE_URL: url });
    const second = await startTestApp({ DATABASE_URL: url });
    try {
      const client = new GraphqlClient(first);
      await client.login();
      const other = new GraphqlClient(second);
      other.accessToken = client.accessToken;
      assert.equal((await other.request(me)).status, 200);
      await client.request('mutation { logout { success } }');
      await new Promise((resolve) => setTimeout(resolve, 1100));
      assert.deepEqual(errorCodes(await other.request(me)), ['UNAUTHENTICATED']);
    } finally {
      await first.stop();
      await second.stop();
    }
  });

  test('sessions survive a restart', async () => {
    const { createSqliteUrl } = await import('../../helpers/databases.js');
    const url = createSqliteUrl();
    const first = await startTestApp({ DATABASE_URL: url });
    const client = new GraphqlClient(first);
    await client.login();
    await first.stop();
    const second = await startTestApp({ DATABASE_URL: url });
    try {
      const again = new GraphqlClient(second);
      again.accessToken = client.accessToken;
      assert.equal((await again.request(me)).status, 200);
      const refreshed = await again.request(
        refreshMutation,
        { input: { organizationId: client.organizationId, refreshToken: client.refreshToken } },
        { token: null },
      );
      assert.equal(refreshed.status, 200);
    } finally {
      await second.stop();
    }
  });
});
