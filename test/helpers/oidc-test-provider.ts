import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { exportJWK, generateKeyPair, SignJWT, type JWK } from 'jose';
// oidc-provider ships no types; the tests use a small part of it, typed below.
// @ts-expect-error -- no declaration file for oidc-provider
import Provider from 'oidc-provider';

/** A person at the test provider: their subject and the claims the platform reads. */
export interface TestAccount {
  sub: string;
  email?: string;
  email_verified?: boolean;
  groups?: string[];
}

export const testClientId = 'thingdesk-studio';
export const testClientSecret = 'test-provider-client-secret-0123456789';
export const testAudience = 'https://api.thingdesk.test';

type KeyObjectOrCryptoKey = Awaited<ReturnType<typeof generateKeyPair>>['privateKey'];

interface ProviderInstance {
  callback(): (req: IncomingMessage, res: ServerResponse) => void;
  interactionDetails(req: IncomingMessage, res: ServerResponse): Promise<{ prompt: { name: string } }>;
  interactionFinished(req: IncomingMessage, res: ServerResponse, result: unknown, options: unknown): Promise<void>;
  Grant: new (init: { accountId: string; clientId: string }) => {
    addOIDCScope(scope: string): void;
    addResourceScope(resource: string, scope: string): void;
    save(): Promise<string>;
  };
}

/**
 * A real OpenID provider (oidc-provider) on 127.0.0.1 port 0, in the test process: discovery, authorization code with
 * PKCE, JWT access tokens for the platform's audience (client credentials, for service accounts), end_session. The
 * person who signs in is `signInAs` (no login form: the interaction finishes at once), consent is given by default.
 * Its RSA key is the test's, so tests can also sign logout tokens (or anything) the way the provider would.
 */
export class OidcTestProvider {
  issuer = '';
  signInAs: TestAccount = { sub: 'alice', email: 'alice@acme.test', email_verified: true, groups: ['thingdesk-admins'] };
  /** Groups the client-credentials access tokens carry (service accounts). */
  serviceGroups: string[] = ['thingdesk-admins'];
  /** How long each request to the token endpoint took here (ms): the provider's share of a sign-in's round trip. */
  readonly tokenEndpointMs: number[] = [];
  privateJwk!: JWK;
  privateKey!: KeyObjectOrCryptoKey;
  private server!: Server;

  /** Starts the provider; `platformUrl` is the platform's PUBLIC_URL (its redirect and logout URIs). */
  async start(platformUrl: string): Promise<void> {
    const { privateKey } = await generateKeyPair('RS256', { extractable: true });
    this.privateKey = privateKey;
    this.privateJwk = { ...(await exportJWK(privateKey)), kid: 'test-key-1', alg: 'RS256', use: 'sig' };
    this.server = createServer();
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve));
    this.issuer = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`;
    const account = () => this.signInAs;
    const provider: ProviderInstance = new Provider(this.issuer, {
      clients: [
        {
          client_id: testClientId,
          client_secret: testClientSecret,
          redirect_uris: [`${platformUrl}/auth/oidc/callback`],
          post_logout_redirect_uris: [`${platformUrl}/studio/sign-in`],
          grant_types: ['authorization_code', 'client_credentials'],
          response_types: ['code'],
          token_endpoint_auth_method: 'client_secret_basic',
          backchannel_logout_uri: `${platformUrl}/auth/oidc/backchannel-logout`,
          backchannel_logout_session_required: true,
        },
      ],
      jwks: { keys: [this.privateJwk] },
      cookies: { keys: ['test-cookie-key-0123456789'] },
      findAccount: async (_ctx: unknown, id: string) => ({ accountId: id, claims: async () => ({ ...account(), sub: id }) }),
      claims: { openid: ['sub'], email: ['email', 'email_verified'], profile: ['name', 'groups'] },
      conformIdTokenClaims: false,
      ttl: { Interaction: 600, Grant: 600, Session: 600, AccessToken: 600, IdToken: 600, ClientCredentials: 600, AuthorizationCode: 60 },
      pkce: { required: () => false },
      features: {
        devInteractions: { enabled: false },
        clientCredentials: { enabled: true },
        backchannelLogout: { enabled: true },
        rpInitiatedLogout: { enabled: true },
        resourceIndicators: {
          enabled: true,
          defaultResource: () => testAudience,
          getResourceServerInfo: (_ctx: unknown, resource: string) => ({
            audience: resource,
            scope: 'api',
            accessTokenFormat: 'jwt',
            jwt: { sign: { alg: 'RS256' } },
          }),
        },
      },
      extraTokenClaims: async (_ctx: unknown, token: { kind: string }) =>
        token.kind === 'ClientCredentials' ? { groups: this.serviceGroups, email: 'robot@acme.test' } : undefined,
      interactions: { url: (_ctx: unknown, interaction: { uid: string }) => `/interaction/${interaction.uid}` },
      loadExistingGrant: async (ctx: {
        oidc: { client: { clientId: string }; session: { accountId?: string }; provider: ProviderInstance };
      }) => {
        if (!ctx.oidc.session.accountId) return undefined;
        const grant = new ctx.oidc.provider.Grant({ clientId: ctx.oidc.client.clientId, accountId: ctx.oidc.session.accountId });
        grant.addOIDCScope('openid email profile');
        await grant.save();
        return grant;
      },
    });
    const handle = provider.callback();
    this.server.on('request', (req: IncomingMessage, res: ServerResponse) => {
      if (req.url?.startsWith('/interaction/')) {
        // The person "signs in" at once as signInAs.
        void provider
          .interactionFinished(req, res, { login: { accountId: account().sub } }, { mergeWithLastSubmission: false })
          .catch((error: unknown) => {
            res.statusCode = 500;
            res.end(String(error));
          });
        return;
      }
      if (req.url?.startsWith('/token')) {
        const start = performance.now();
        res.once('finish', () => this.tokenEndpointMs.push(performance.now() - start));
      }
      handle(req, res);
    });
  }

  /** A JWT access token for the audience, from the client-credentials grant (a service account). */
  async serviceToken(resource = testAudience): Promise<string> {
    const response = await fetch(`${this.issuer}/token`, {
      method: 'POST',
      headers: {
        authorization: `Basic ${Buffer.from(`${testClientId}:${testClientSecret}`).toString('base64')}`,
        'content-type': 'application/x-www-form-urlencoded',
      },
      body: new URLSearchParams({ grant_type: 'client_credentials', resource, scope: 'api' }),
    });
    const body = (await response.json()) as { access_token?: string };
    if (!body.access_token) throw new Error(`no access token: ${JSON.stringify(body)}`);
    return body.access_token;
  }

  /** Signs a JWT with the provider's own key, as the provider would (logout tokens). */
  sign(claims: Record<string, unknown>, header: { typ?: string; kid?: string } = {}): Promise<string> {
    return new SignJWT(claims)
      .setProtectedHeader({ alg: 'RS256', kid: header.kid ?? 'test-key-1', typ: header.typ ?? 'logout+jwt' })
      .sign(this.privateKey);
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections();
    await new Promise<void>((resolve) => this.server.close(() => resolve()));
  }
}

/** A free loopback port for a platform whose PUBLIC_URL must be known before it starts (its redirect URI). */
export async function freePort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}

/** Cookies by name, as a browser would send them back to these loopback servers (paths and ports ignored). */
export class CookieJar {
  private readonly cookies = new Map<string, string>();

  take(response: Response): void {
    for (const line of response.headers.getSetCookie()) {
      const [pair] = line.split(';');
      const at = pair!.indexOf('=');
      const name = pair!.slice(0, at).trim();
      const value = pair!.slice(at + 1).trim();
      if (value === '' || /max-age=0/i.test(line) || /expires=Thu, 01 Jan 1970/i.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, value);
    }
  }

  header(): string {
    return [...this.cookies].map(([name, value]) => `${name}=${value}`).join('; ');
  }

  get(name: string): string | undefined {
    return this.cookies.get(name);
  }
}

/** Follows redirects by hand, carrying cookies, until `stop(url)` says so or a page answers; returns that URL or response. */
export async function follow(
  start: string,
  jar: CookieJar,
  stop: (url: URL) => boolean,
): Promise<{ url: URL; response: Response | undefined }> {
  let url = new URL(start);
  for (let hops = 0; hops < 20; hops++) {
    if (stop(url)) return { url, response: undefined };
    const response = await fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } });
    jar.take(response);
    const location = response.headers.get('location');
    if (response.status < 300 || response.status >= 400 || !location) return { url, response };
    await response.arrayBuffer();
    url = new URL(location, url);
  }
  throw new Error(`too many redirects from ${start}`);
}
