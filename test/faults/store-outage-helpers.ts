/** A test app whose PostgreSQL is reached through a proxy the store fault tests cut or stall, and request timing. */
import { createPostgresUrl } from '../helpers/databases.js';
import { TcpProxy } from '../helpers/tcp-proxy.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Runs a request and returns its result with how long it took, so a hang shows up as a failed bound. */
export async function timed<T>(request: () => Promise<T>): Promise<{ result: T; ms: number }> {
  const started = Date.now();
  const result = await request();
  return { result, ms: Date.now() - started };
}

export interface StoreBehindProxy {
  /** The store itself, for checks that must not go through the proxy. */
  databaseUrl: string;
  proxy: TcpProxy;
  server: TestApp;
}

/**
 * Starts a test app on a fresh PostgreSQL database behind a proxy and runs `scenario`. The app stops only after the
 * scenario's own clean-up, so that a scenario lets go of a cut or stalled proxy before the app closes its pool.
 */
export async function withStoreBehindProxy(
  env: Record<string, string>,
  scenario: (store: StoreBehindProxy) => Promise<void>,
): Promise<void> {
  const databaseUrl = await createPostgresUrl();
  const proxy = await TcpProxy.forUrl(databaseUrl, 5432);
  let server: TestApp | undefined;
  try {
    server = await startTestApp({ DATABASE_URL: proxy.proxiedUrl(databaseUrl), ...env });
    await scenario({ databaseUrl, proxy, server });
  } finally {
    await server?.stop();
    await proxy.close();
  }
}
