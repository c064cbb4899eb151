import { CapturedLogs } from '../../helpers/captured-logs.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';
import {
  CookieJar,
  OidcTestProvider,
  follow,
  freePort,
  testAudience,
  testClientId,
  testClientSecret,
} from '../../helpers/oidc-test-provider.js';

/** The OIDC_* settings of a platform signing in with the test provider (its organization is the bootstrap one, acme). */
export function ssoEnv(provider: OidcTestProvider, publicUrl: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    PUBLIC_URL: publicUrl,
    OIDC_ISSUER: provider.issuer,
    OIDC_CLIENT_ID: testClientId,
    OIDC_CLIENT_SECRET: testClientSecret,
    OIDC_ORGANIZATION: 'acme',
    OIDC_ROLE_MAP: 'thingdesk-admins:MANAGER,thingdesk-field:INSTALLER,thingdesk-staff:VIEWER',
    OIDC_NAME: 'Acme ID',
    OIDC_ACCEPT_ACCESS_TOKENS: 'true',
    OIDC_AUDIENCE: testAudience,
    ...extra,
  };
}

/** A provider and a platform that trusts it, on loopback; the platform's logs captured at trace. */
export async function startSsoPair(
  extra: Record<string, string> = {},
  options: { databaseUrl?: string; provider?: OidcTestProvider } = {},
): Promise<{ provider: OidcTestProvider; server: TestApp; logs: CapturedLogs; stop(): Promise<void> }> {
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const provider = options.provider ?? new OidcTestProvider();
  if (!options.provider) await provider.start(publicUrl);
  const logs = new CapturedLogs();
  const env = {
    ...ssoEnv(provider, publicUrl, extra),
    PORT: String(port),
    ...(options.databaseUrl && { DATABASE_URL: options.databaseUrl }),
  };
  const server = await startTestApp(env, { logger: logs.logger });
  return {
    provider,
    server,
    logs,
    stop: async () => {
      await server.stop();
      if (!options.provider) await provider.stop();
    },
  };
}

/** Starts a sign-in at the platform and follows it through the provider up to the callback (not called yet). */
export async function authorizeAtProvider(server: TestApp, next = '/studio/things'): Promise<{ callback: URL; jar: CookieJar }> {
  const jar = new CookieJar();
  const { url } = await follow(
    server.url(`/auth/oidc/login?next=${encodeURIComponent(next)}`),
    jar,
    (at) => at.pathname === '/auth/oidc/callback',
  );
  if (url.pathname !== '/auth/oidc/callback') throw new Error(`the sign-in did not come back to the callback: ${url.href}`);
  return { callback: url, jar };
}

/** Calls the callback as the browser would (its cookies), without following the answer. */
export async function callCallback(callback: URL, jar: CookieJar): Promise<Response> {
  const response = await fetch(callback, { redirect: 'manual', headers: { cookie: jar.header() } });
  jar.take(response);
  return response;
}

/** The check a failure page names, or undefined when it is not one. */
export async function failedCheck(response: Response): Promise<string | undefined> {
  const html = await response.text();
  return /data-check="([^"]+)"/.exec(html)?.[1];
}

/** The whole sign-in: the code of `#sso=` in the final redirect. */
export async function signInCode(server: TestApp, next = '/studio/things'): Promise<{ code: string; location: string }> {
  const { callback, jar } = await authorizeAtProvider(server, next);
  const response = await callCallback(callback, jar);
  const location = response.headers.get('location') ?? '';
  const code = /#sso=([A-Za-z0-9_-]+)$/.exec(location)?.[1];
  if (response.status !== 303 || !code) throw new Error(`sign-in failed: ${response.status} ${await response.text()}`);
  return { code, location };
}

/** Exchanges a code for a session over REST. */
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- a JSON answer the tests read field by field
type JsonAnswer = { status: number; body: any };

export async function exchange(server: TestApp, code: string): Promise<JsonAnswer> {
  const response = await fetch(server.url('/auth/oidc/session'), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ code }),
  });
  return { status: response.status, body: await response.json() };
}
