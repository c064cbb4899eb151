import assert from 'node:assert/strict';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { after, before, describe, test } from 'node:test';
import { SignJWT, exportJWK, exportSPKI, generateKeyPair, type JWK } from 'jose';
import { cleanupStores } from '../../helpers/databases.js';
import { freePort } from '../../helpers/oidc-test-provider.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import { failedCheck } from './sso-helpers.js';

type Crafter = (claims: Record<string, unknown>) => Promise<string>;

/**
 * A provider the test controls completely: discovery, its JWKS and a token endpoint answering whatever ID token the
 * test crafts, to see each check of the callback refuse a forged or broken one (SPEC 15).
 */
class CraftingProvider {
  issuer = '';
  jwksFetches = 0;
  craft: Crafter = async () => '';
  claims: (nonce: string) => Record<string, unknown> = () => ({});
  private server!: Server;
  private nonce = '';
  privateKey!: Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];
  publicJwk!: JWK;
  publicPem = '';

  async start(): Promise<void> {
    const pair = await generateKeyPair('RS256', { extractable: true });
    this.privateKey = pair.privateKey;
    this.publicJwk = { ...(await exportJWK(pair.publicKey)), kid: 'k1', alg: 'RS256', use: 'sig' };
    this.publicPem = await exportSPKI(pair.publicKey);
    this.server = createServer((req, res) => {
      const url = new URL(req.url!, this.issuer);
      const json = (body: unknown) => {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify(body));
      };
      if (url.pathname === '/.well-known/openid-configuration')
        return json({
          issuer: this.issuer,
          authorization_endpoint: `${this.issuer}/auth`,
          token_endpoint: `${this.issuer}/token`,
          jwks_uri: `${this.issuer}/jwks`,
          response_types_supported: ['code'],
          subject_types_supported: ['public'],
          id_token_signing_alg_values_supported: ['RS256'],
          code_challenge_methods_supported: ['S256'],
        });
      if (url.pathname === '/jwks') {
        this.jwksFetches++;
        return json({ keys: [this.publicJwk] });
      }
      if (url.pathname === '/token') {
        req.resume();
        req.on('end', () => {
          void this.craft(this.claims(this.nonce)).then((idToken) =>
            json({ access_token: 'opaque-access-token', token_type: 'Bearer', expires_in: 300, id_token: idToken }),
          );
        });
        return;
      }
      res.statusCode = 404;
      res.end();
    });
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
  }

  /** Starts a sign-in at the platform: the callback URL the provider would send the browser to, and its cookie. */
  async begin(server: TestApp): Promise<{ callback: string; cookie: string }> {
    const response = await fetch(server.url('/auth/oidc/login?next=/'), { redirect: 'manual' });
    const location = new URL(response.headers.get('location')!);
    this.nonce = location.searchParams.get('nonce')!;
    const state = location.searchParams.get('state')!;
    return { callback: server.url(`/auth/oidc/callback?code=some-code&state=${state}`), cookie: `thingdesk_oidc_state=${state}` };
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

describe('the callback checks the ID token: each forgery or fault gets its 400 page and no session (SPEC 15)', () => {
  const provider = new CraftingProvider();
  let server: TestApp;
  const nowS = () => Math.floor(Date.now() / 1000);
  const goodClaims = (nonce: string) => ({
    iss: provider.issuer,
    aud: 'thingdesk',
    sub: 'mallory',
    email: 'mallory@acme.test',
    groups: ['admins'],
    nonce,
    iat: nowS(),
    exp: nowS() + 300,
  });
  const signRs256: Crafter = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(provider.privateKey);

  before(async () => {
    await provider.start();
    const port = await freePort();
    server = await startTestApp({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: 'thingdesk',
      OIDC_CLIENT_SECRET: 'crafting-provider-secret',
      OIDC_CLIENT_AUTH: 'client_secret_post',
      OIDC_ORGANIZATION: 'acme',
      OIDC_ROLE_MAP: 'admins:MANAGER',
    });
  });
  after(async () => {
    await server.stop();
    await provider.stop();
    await cleanupStores();
  });

  async function attempt(claims: (nonce: string) => Record<string, unknown>, craft: Crafter = signRs256): Promise<Response> {
    provider.claims = claims;
    provider.craft = craft;
    const { callback, cookie } = await provider.begin(server);
    return fetch(callback, { redirect: 'manual', headers: { cookie } });
  }

  test('a well-formed ID token signs in (the crafting itself is right)', async () => {
    const response = await attempt(goodClaims);
    assert.equal(response.status, 303);
    assert.match(response.headers.get('location')!, /^\/#sso=/);
  });

  const refusals: [string, string, (nonce: string) => Record<string, unknown>, Crafter?][] = [
    ['another nonce', 'nonce', (nonce) => ({ ...goodClaims(nonce), nonce: 'not-the-nonce' })],
    ['another issuer', 'issuer', (nonce) => ({ ...goodClaims(nonce), iss: 'http://127.0.0.1:1/evil' })],
    ['another audience', 'audience', (nonce) => ({ ...goodClaims(nonce), aud: 'another-client' })],
    ['expired', 'expiry', (nonce) => ({ ...goodClaims(nonce), iat: nowS() - 3600, exp: nowS() - 1800 })],
    [
      'alg none',
      'signature',
      goodClaims,
      async (claims) =>
        `${Buffer.from(JSON.stringify({ alg: 'none', typ: 'JWT' })).toString('base64url')}.${Buffer.from(JSON.stringify(claims)).toString('base64url')}.`,
    ],
    [
      'HS256 signed with the provider public key',
      'signature',
      goodClaims,
      (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'HS256', kid: 'k1' }).sign(new TextEncoder().encode(provider.publicPem)),
    ],
    [
      'an unknown kid',
      'signature',
      goodClaims,
      async (claims) => {
        const other = await generateKeyPair('RS256');
        return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'unknown-kid' }).sign(other.privateKey);
      },
    ],
    [
      'a signature by another key under the right kid',
      'signature',
      goodClaims,
      async (claims) => {
        const other = await generateKeyPair('RS256');
        return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(other.privateKey);
      },
    ],
    ['no e-mail claim', 'e-mail', (nonce) => ({ ...goodClaims(nonce), email: undefined })],
  ];
  for (const [name, check, claims, craft] of refusals)
    test(`an ID token with ${name} fails the ${check} check, with no code`, async () => {
      const response = await attempt(claims, craft);
      assert.equal(response.status, 400);
      assert.equal(response.headers.get('location'), null);
      assert.equal(await failedCheck(response), check);
    });

  test('unknown kids refetch the provider keys at most once a minute', async () => {
    const unknownKid: Crafter = async (claims) => {
      const other = await generateKeyPair('RS256');
      return new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: `kid-${Math.random()}` }).sign(other.privateKey);
    };
    // After the earlier attempts both key caches (openid-client's and the platform's) are within their minute.
    const before = provider.jwksFetches;
    for (let i = 0; i < 3; i++) assert.equal(await failedCheck(await attempt(goodClaims, unknownKid)), 'signature');
    assert.ok(provider.jwksFetches - before <= 1, `fetched the keys ${provider.jwksFetches - before} times for 3 unknown kids`);
  });
});

describe('OIDC_JIT=false and OIDC_ORGANIZATION_CLAIM: only existing users, of the organization the claim names (SPEC 15)', () => {
  const provider = new CraftingProvider();
  let server: TestApp;
  const nowS = () => Math.floor(Date.now() / 1000);
  before(async () => {
    await provider.start();
    const port = await freePort();
    server = await startTestApp({
      PORT: String(port),
      PUBLIC_URL: `http://127.0.0.1:${port}`,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: 'thingdesk',
      OIDC_CLIENT_SECRET: 'crafting-provider-secret',
      OIDC_ORGANIZATION_CLAIM: 'org',
      OIDC_ROLE_MAP: '*:VIEWER',
      OIDC_JIT: 'false',
    });
    provider.craft = (claims) => new SignJWT(claims).setProtectedHeader({ alg: 'RS256', kid: 'k1' }).sign(provider.privateKey);
  });
  after(async () => {
    await server.stop();
    await provider.stop();
    await cleanupStores();
  });

  async function signInWith(claims: Record<string, unknown>): Promise<Response> {
    provider.claims = (nonce) => ({ iss: provider.issuer, aud: 'thingdesk', nonce, iat: nowS(), exp: nowS() + 300, ...claims });
    const { callback, cookie } = await provider.begin(server);
    return fetch(callback, { redirect: 'manual', headers: { cookie } });
  }

  test('an organization the claim names that does not exist is refused with the organization page', async () => {
    assert.equal(await failedCheck(await signInWith({ sub: 'x', email: 'manager@acme.test', org: 'nope' })), 'organization');
  });

  test('a person with no user there is refused with the user page; an existing user signs in and is tied to the subject', async () => {
    assert.equal(await failedCheck(await signInWith({ sub: 'new', email: 'new@acme.test', org: 'acme' })), 'user');
    const existing = await signInWith({ sub: 'the-manager', email: 'Manager@acme.test', org: 'acme' });
    assert.equal(existing.status, 303);
    assert.equal((await server.app.store.users.getBySsoSubject('acme', 'the-manager'))?.email, 'manager@acme.test');
    // The same e-mail from another subject is not this user.
    assert.equal(await failedCheck(await signInWith({ sub: 'impostor', email: 'manager@acme.test', org: 'acme' })), 'user');
  });
});
