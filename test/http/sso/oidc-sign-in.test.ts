import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../../helpers/databases.js';
import { GraphqlClient } from '../../helpers/graphql-client.js';
import { follow, CookieJar, testClientId, testClientSecret } from '../../helpers/oidc-test-provider.js';
import { authorizeAtProvider, callCallback, exchange, failedCheck, signInCode, startSsoPair } from './sso-helpers.js';

describe('single sign-on over HTTP with a real OpenID provider (SPEC 15)', () => {
  let pair: Awaited<ReturnType<typeof startSsoPair>>;
  const secrets = new Set<string>([testClientSecret]);
  before(async () => {
    pair = await startSsoPair();
  });
  after(async () => {
    // No code, token, state or secret in any log line at any level (trace here).
    for (const secret of secrets) {
      const leaking = pair.logs.lines.filter((line) => line.includes(secret));
      assert.deepEqual(leaking, [], 'a log line carries a code, token or secret');
    }
    assert.ok(pair.logs.lines.length > 10, 'the logs were captured');
    await pair.stop();
    await cleanupStores();
  });

  test('GET /auth/oidc/config names the provider and the login URL', async () => {
    const response = await fetch(pair.server.url('/auth/oidc/config'));
    assert.deepEqual(await response.json(), { name: 'Acme ID', loginUrl: '/auth/oidc/login', passwordLogin: true });
  });

  test('login redirects to the provider with code flow, PKCE S256, state and nonce, and sets the state cookie', async () => {
    const response = await fetch(pair.server.url('/auth/oidc/login?next=/studio/things'), { redirect: 'manual' });
    assert.equal(response.status, 302);
    const location = new URL(response.headers.get('location')!);
    assert.equal(location.origin, pair.provider.issuer);
    assert.equal(location.searchParams.get('response_type'), 'code');
    assert.equal(location.searchParams.get('code_challenge_method'), 'S256');
    assert.ok(location.searchParams.get('code_challenge'));
    assert.ok(location.searchParams.get('nonce'));
    assert.equal(location.searchParams.get('client_id'), testClientId);
    assert.equal(location.searchParams.get('redirect_uri'), pair.server.url('/auth/oidc/callback'));
    const state = location.searchParams.get('state')!;
    assert.match(response.headers.get('set-cookie') ?? '', new RegExp(`thingdesk_oidc_state=${state};.*HttpOnly; SameSite=Lax`));
  });

  test('a sign-in ends at next#sso=CODE; the code gives a seed-001 session once (REST), and ssoLogin works the same', async () => {
    pair.provider.signInAs = { sub: 'alice', email: 'alice@acme.test', email_verified: true, groups: ['thingdesk-admins'] };
    const { code, location } = await signInCode(pair.server, '/studio/things?q=x');
    secrets.add(code);
    assert.equal(location.split('#')[0], '/studio/things?q=x');
    const first = await exchange(pair.server, code);
    assert.equal(first.status, 200);
    assert.deepEqual(Object.keys(first.body.data).sort(), [
      'accessToken',
      'expiresIn',
      'organizationId',
      'refreshExpiresIn',
      'refreshToken',
    ]);
    assert.equal(first.body.data.organizationId, 'acme');
    secrets.add(first.body.data.accessToken).add(first.body.data.refreshToken);
    const again = await exchange(pair.server, code);
    assert.equal(again.status, 401);
    assert.equal(again.body.code, 'UNAUTHENTICATED');

    const client = new GraphqlClient(pair.server);
    client.accessToken = first.body.data.accessToken;
    const me = await client.request('{ me { email role organizationId } }');
    assert.deepEqual(me.body.data?.me, { email: 'alice@acme.test', role: 'MANAGER', organizationId: 'acme' });
    // A seed-001 session: the refresh token rotates.
    const refreshed = await client.request(
      'mutation R($i: RefreshTokenInput!) { refreshToken(refreshTokenInput: $i) { accessToken refreshToken } }',
      { i: { organizationId: 'acme', refreshToken: first.body.data.refreshToken } },
      { token: null },
    );
    assert.ok(refreshed.body.data?.refreshToken?.accessToken);
    secrets.add(refreshed.body.data.refreshToken.accessToken).add(refreshed.body.data.refreshToken.refreshToken);

    const second = await signInCode(pair.server);
    secrets.add(second.code);
    const viaGraphql = await client.request(
      'mutation S($code: String!) { ssoLogin(code: $code) { accessToken refreshToken expiresIn refreshExpiresIn organizationId } }',
      { code: second.code },
      { token: null },
    );
    assert.equal(viaGraphql.body.data?.ssoLogin?.organizationId, 'acme');
    assert.equal(viaGraphql.body.data.ssoLogin.expiresIn, 900);
    secrets.add(viaGraphql.body.data.ssoLogin.accessToken).add(viaGraphql.body.data.ssoLogin.refreshToken);
    const replay = await client.request(
      'mutation S($code: String!) { ssoLogin(code: $code) { accessToken } }',
      { code: second.code },
      { token: null },
    );
    assert.equal(replay.body.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED');
  });

  test('next must be a path of the platform starting with one /: anything else becomes /', async () => {
    for (const next of ['https://evil.test/x', '//evil.test/x', '/\\evil.test', 'javascript:alert(1)']) {
      const { location } = await signInCode(pair.server, next);
      assert.match(location, /^\/#sso=/, next);
    }
  });

  test('the role is the highest the map gives, * gives Viewer, no mapped role is refused with the role page', async () => {
    pair.provider.signInAs = { sub: 'bob', email: 'bob@acme.test', groups: ['thingdesk-staff', 'thingdesk-field', 'other'] };
    const bob = await exchange(pair.server, (await signInCode(pair.server)).code);
    secrets.add(bob.body.data.accessToken);
    const client = new GraphqlClient(pair.server);
    client.accessToken = bob.body.data.accessToken;
    assert.equal((await client.request('{ me { role } }')).body.data?.me?.role, 'INSTALLER');

    pair.provider.signInAs = { sub: 'carol', email: 'carol@acme.test', groups: ['other'] };
    const { callback, jar } = await authorizeAtProvider(pair.server);
    const refused = await callCallback(callback, jar);
    assert.equal(refused.status, 400);
    assert.equal(await failedCheck(refused), 'role');
    assert.equal(refused.headers.get('location'), null);
    // Into OIDC_ORGANIZATION's audit log (SPEC 15): auth.login_failed naming the check and the e-mail tried.
    const entries = await pair.server.app.store.audit.list({ organizationId: 'acme', action: 'auth.login_failed', limit: 10 });
    const failed = entries.find((entry) => entry.actor.label === 'carol@acme.test');
    assert.ok(failed, JSON.stringify(entries));
    assert.equal(failed.outcome, 'denied');
    assert.deepEqual(failed.changes?.check, { from: null, to: 'role' });
  });

  test('a person without an e-mail claim is refused with the e-mail page', async () => {
    pair.provider.signInAs = { sub: 'dave', groups: ['thingdesk-staff'] };
    const { callback, jar } = await authorizeAtProvider(pair.server);
    const refused = await callCallback(callback, jar);
    assert.equal(refused.status, 400);
    assert.equal(await failedCheck(refused), 'e-mail');
  });

  test('a bad, missing or replayed state is refused with the state page and no code', async () => {
    pair.provider.signInAs = { sub: 'alice', email: 'alice@acme.test', groups: ['thingdesk-admins'] };
    const { callback, jar } = await authorizeAtProvider(pair.server);
    secrets.add(callback.searchParams.get('code')!).add(callback.searchParams.get('state')!);
    const tampered = new URL(callback);
    tampered.searchParams.set('state', 'not-the-state');
    // The failure page clears the browser's state cookie; these attempts keep it, to try the right state after.
    const bad = await fetch(tampered, { redirect: 'manual', headers: { cookie: jar.header() } });
    assert.equal(bad.status, 400);
    assert.equal(await failedCheck(bad), 'state');
    // Without the browser's cookie (another browser, a login CSRF), the right state is refused too.
    const noCookie = await fetch(callback, { redirect: 'manual' });
    assert.equal(await failedCheck(noCookie), 'state');
    const ok = await callCallback(callback, jar);
    assert.equal(ok.status, 303);
    secrets.add(/#sso=(.*)$/.exec(ok.headers.get('location')!)![1]!);
    const replayJar = new CookieJar();
    const replay = await fetch(callback, {
      redirect: 'manual',
      headers: { cookie: `thingdesk_oidc_state=${callback.searchParams.get('state')}; ${replayJar.header()}` },
    });
    assert.equal(replay.status, 400);
    assert.equal(await failedCheck(replay), 'state');
  });

  test('a bad or replayed code is refused with the code page', async () => {
    const first = await authorizeAtProvider(pair.server);
    secrets.add(first.callback.searchParams.get('code')!);
    const bad = new URL(first.callback);
    bad.searchParams.set('code', 'made-up-code');
    const refused = await callCallback(bad, first.jar);
    assert.equal(refused.status, 400);
    assert.equal(await failedCheck(refused), 'code');

    const used = await authorizeAtProvider(pair.server);
    secrets.add(used.callback.searchParams.get('code')!);
    assert.equal((await callCallback(used.callback, used.jar)).status, 303);
    // The used code again, under a fresh state of this browser: the provider refuses it.
    const fresh = await authorizeAtProvider(pair.server);
    const replayed = new URL(fresh.callback);
    replayed.searchParams.set('code', used.callback.searchParams.get('code')!);
    const again = await callCallback(replayed, fresh.jar);
    assert.equal(again.status, 400);
    assert.equal(await failedCheck(again), 'code');
  });

  test('a code obtained without PKCE (injected from another authorization request) is refused with the code page', async () => {
    const jar = new CookieJar();
    const start = new URL(`${pair.provider.issuer}/auth`);
    start.search = new URLSearchParams({
      client_id: testClientId,
      response_type: 'code',
      scope: 'openid email profile',
      redirect_uri: pair.server.url('/auth/oidc/callback'),
      state: 'attacker-state',
      nonce: 'attacker-nonce',
    }).toString();
    const { url } = await follow(start.href, jar, (at) => at.pathname === '/auth/oidc/callback');
    const injectedCode = url.searchParams.get('code')!;
    assert.ok(injectedCode);
    secrets.add(injectedCode);
    const victim = await authorizeAtProvider(pair.server);
    const injected = new URL(victim.callback);
    injected.searchParams.set('code', injectedCode);
    const refused = await callCallback(injected, victim.jar);
    assert.equal(refused.status, 400);
    assert.equal(await failedCheck(refused), 'code');
  });
});
