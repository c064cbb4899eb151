/**
 * `npm run bench:sso` (issue 39), the `bench:rest` variant for single sign-on: an OpenID provider (oidc-provider, in
 * this process, as in the tests) and the platform in its own process on a fresh SQLite store, then
 *
 * - the sign-in round trip: `SSO_SIGN_INS` (default 50) whole sign-ins one after another, each timed on the platform's
 *   side: `/auth/oidc/login` + `/auth/oidc/callback` less the provider's token endpoint (measured in the provider) +
 *   `POST /auth/oidc/session`; p50/p99 against the issue's target (< 50 ms p99);
 * - REST `GET /groups` under autocannon (BENCH_CONNECTIONS, BENCH_WARMUP_S, BENCH_WINDOW_S, as bench:rest) with one
 *   provider access token (OIDC_ACCEPT_ACCESS_TOKENS), against the issue's target (> 5,000 requests a second), and the
 *   same with a platform client token for comparison.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CookieJar,
  OidcTestProvider,
  follow,
  freePort,
  testAudience,
  testClientId,
  testClientSecret,
} from '../../test/helpers/oidc-test-provider.js';
import { measureLoad, postJson, type LoadResult, type LoadTarget } from '../lib/http-load.js';
import { readBenchPlatformEnv } from '../lib/http-platform.js';
import { preparePlatformEntry } from '../lib/node-entry.js';
import { killChildrenOnSignal, killAll, spawnChild } from '../lib/processes.js';
import { loadTiming, log } from '../lib/read-bench.js';
import { waitForHttpPort } from '../lib/http-platform.js';

const signIns = Number(process.env.SSO_SIGN_INS ?? 50);
const targets = { signInP99Ms: 50, restPerS: 5000 };

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
}

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const start = performance.now();
  const value = await work();
  return { value, ms: performance.now() - start };
}

async function main(): Promise<void> {
  killChildrenOnSignal(killAll);
  const dir = mkdtempSync(join(tmpdir(), 'thingdesk-bench-sso-'));
  const entry = await preparePlatformEntry();
  log(`platform: ${entry.note}`);
  const port = await freePort();
  const publicUrl = `http://127.0.0.1:${port}`;
  const provider = new OidcTestProvider();
  await provider.start(publicUrl);
  provider.signInAs = { sub: 'bench', email: 'bench@acme.test', email_verified: true, groups: ['thingdesk-admins'] };
  const platform = spawnChild('platform', process.execPath, [...entry.args, 'serve'], {
    cwd: dir,
    env: {
      PATH: process.env.PATH,
      ...readBenchPlatformEnv,
      PORT: String(port),
      DATABASE_URL: `file:${join(dir, 'bench.db')}`,
      BOOTSTRAP_ORG: 'Acme',
      BOOTSTRAP_CLIENT_ID: 'bench-client',
      BOOTSTRAP_CLIENT_SECRET: 'bench-client-secret-0123456789',
      PUBLIC_URL: publicUrl,
      OIDC_ISSUER: provider.issuer,
      OIDC_CLIENT_ID: testClientId,
      OIDC_CLIENT_SECRET: testClientSecret,
      OIDC_ORGANIZATION: 'acme',
      OIDC_ROLE_MAP: 'thingdesk-admins:MANAGER,*:VIEWER',
      OIDC_ACCEPT_ACCESS_TOKENS: 'true',
      OIDC_AUDIENCE: testAudience,
    },
  });
  try {
    await waitForHttpPort(platform, '/healthz');
    const base = publicUrl;
    // Until its start has finished (the first organization made) the platform answers 503 STARTING.
    while (!(await fetch(`${base}/auth/oidc/config`)).ok) await new Promise((resolve) => setTimeout(resolve, 100));

    // The sign-in round trip, platform side.
    const platformMs: number[] = [];
    for (let i = 0; i < signIns; i++) {
      const jar = new CookieJar();
      const login = await timed(() => fetch(`${base}/auth/oidc/login?next=/`, { redirect: 'manual' }));
      jar.take(login.value);
      const { url } = await follow(
        new URL(login.value.headers.get('location')!, base).href,
        jar,
        (at) => at.pathname === '/auth/oidc/callback',
      );
      const tokenCallsBefore = provider.tokenEndpointMs.length;
      const callback = await timed(() => fetch(url, { redirect: 'manual', headers: { cookie: jar.header() } }));
      const code = /#sso=(.+)$/.exec(callback.value.headers.get('location') ?? '')?.[1];
      if (!code) throw new Error(`sign-in ${i} failed: ${callback.value.status}`);
      const providerMs = provider.tokenEndpointMs.slice(tokenCallsBefore).reduce((a, b) => a + b, 0);
      const session = await timed(() => postJson(`${base}/auth/oidc/session`, { code }));
      if (!(session.value as { data?: unknown }).data) throw new Error('no session');
      platformMs.push(login.ms + (callback.ms - providerMs) + session.ms);
    }

    // REST with a provider access token, and with a platform client token.
    const providerToken = await provider.serviceToken();
    const clientToken = (
      (await postJson(`${base}/api/v1/auth/client-token`, {
        client_id: 'bench-client',
        client_secret: 'bench-client-secret-0123456789',
      })) as { data: { token: string } }
    ).data.token;
    const groups = (name: string, token: string): LoadTarget => ({
      name,
      varies: false,
      next: () => ({ method: 'GET', path: '/api/v1/groups', headers: { authorization: `Bearer ${token}` } }),
      verifyBody: (body) => body.startsWith('{"data":['),
    });
    const results: LoadResult[] = [];
    for (const target of [
      groups('GET /groups, provider access token', providerToken),
      groups('GET /groups, platform client token', clientToken),
    ]) {
      log(`${target.name}: warm-up ${loadTiming.warmupS} s, window ${loadTiming.windowS} s`);
      results.push(await measureLoad(base, target, loadTiming, platform.pid));
    }

    const p50 = quantile(platformMs, 0.5);
    const p99 = quantile(platformMs, 0.99);
    const viaProvider = results[0]!;
    const lines = [
      '',
      `== single sign-on benchmark (${signIns} sign-ins; autocannon ${loadTiming.connections} connections, ${loadTiming.windowS} s windows)`,
      `sign-in round trip, platform side: p50 ${p50.toFixed(1)} ms, p99 ${p99.toFixed(1)} ms` +
        ` -> ${p99 < targets.signInP99Ms ? 'MET' : 'NOT MET'} (target p99 < ${targets.signInP99Ms} ms)`,
      ...results.map(
        (result) =>
          `${result.name}: ${Math.round(result.requestsPerS)} req/s, p50 ${result.latencyMs.p50} ms, p99 ${result.latencyMs.p99} ms, ` +
          `errors ${result.errors.non2xx + result.errors.connection + result.errors.mismatches}`,
      ),
      `provider access tokens on REST: ${viaProvider.requestsPerS > targets.restPerS ? 'MET' : 'NOT MET'} (target > ${targets.restPerS} req/s)`,
      'Figures from a shared, loaded machine are not meaningful as absolutes; compare the two REST rows.',
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await platform.stop();
    await provider.stop();
    if (entry.buildDir) rmSync(entry.buildDir, { recursive: true, force: true });
    rmSync(dir, { recursive: true, force: true });
  }
}

await main();
