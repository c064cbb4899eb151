/**
 * `thingdesk serve` in its own process for the HTTP benchmarks, on port 0 with LOG_LEVEL=warn. At that level the
 * platform does not print its "listening" line, so its HTTP port is found from outside: the TCP sockets the
 * process listens on (Linux /proc), the one answering GET /healthz being HTTP (the other is the embedded broker).
 */
import { readFileSync, readdirSync, readlinkSync } from 'node:fs';
import type { PlatformEntry } from './node-entry.js';
import { sleep, spawnChild, type ChildHandle } from './processes.js';

/** Ports the process listens on (IPv4 and IPv6), from its socket inodes and /proc/net/tcp*. */
export function listeningPorts(pid: number): number[] {
  const inodes = new Set<string>();
  try {
    for (const fd of readdirSync(`/proc/${pid}/fd`)) {
      try {
        const match = /^socket:\[(\d+)\]$/.exec(readlinkSync(`/proc/${pid}/fd/${fd}`));
        if (match) inodes.add(match[1]!);
      } catch {
        // The descriptor closed meanwhile.
      }
    }
  } catch {
    return [];
  }
  const ports = new Set<number>();
  for (const table of ['/proc/net/tcp', '/proc/net/tcp6']) {
    let text = '';
    try {
      text = readFileSync(table, 'utf8');
    } catch {
      continue;
    }
    for (const line of text.split('\n').slice(1)) {
      const fields = line.trim().split(/\s+/);
      // local_address is HEX_IP:HEX_PORT, st 0A is LISTEN, field 9 is the inode.
      if (fields.length > 9 && fields[3] === '0A' && inodes.has(fields[9]!)) ports.add(parseInt(fields[1]!.split(':')[1]!, 16));
    }
  }
  return [...ports];
}

/** Waits until the process listens on a port that answers `GET probePath` with 200; returns that port. */
export async function waitForHttpPort(handle: ChildHandle, probePath: string, timeoutMs = 120_000): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  const rejected = new Set<number>();
  for (;;) {
    if (handle.child.exitCode !== null || handle.child.signalCode !== null)
      throw new Error(`${handle.name} exited before it was ready:\n${handle.output().slice(-4000)}`);
    for (const port of listeningPorts(handle.pid)) {
      if (rejected.has(port)) continue;
      try {
        const response = await fetch(`http://127.0.0.1:${port}${probePath}`, { signal: AbortSignal.timeout(1000) });
        if (response.ok) return port;
      } catch {
        // Not HTTP (the MQTT broker): it never answers, or closes the connection.
        rejected.add(port);
      }
    }
    if (Date.now() > deadline)
      throw new Error(`${handle.name} did not answer ${probePath} within ${timeoutMs} ms:\n${handle.output().slice(-4000)}`);
    await sleep(100);
  }
}

export interface ReadPlatform {
  readonly process: ChildHandle;
  readonly baseUrl: string;
  stop(): Promise<void>;
}

/** The key sealing the token-signing keys in a bench store (SIGNING_KEY_SEALING_KEY; a bench secret, not a real one). */
export const benchSigningKeySealingKey = 'YmVuY2gtc2lnbmluZy1rZXktc2VhbGluZy1rZXktMDEyMzQ1Njc4OQ==';

/** Environment every read benchmark gives the platform (on top of DATABASE_URL and the caller's overrides). */
export const readBenchPlatformEnv: Record<string, string> = {
  PORT: '0',
  HOST: '127.0.0.1',
  MQTT_PORT: '0',
  LOG_LEVEL: 'warn',
  // Required on PostgreSQL (BENCH_DATABASE_URL): the key the token-signing keys are sealed under.
  SIGNING_KEY_SEALING_KEY: benchSigningKeySealingKey,
  // The rate limiter must not cap the benchmark (10,000,000 a minute is the highest the configuration accepts) (it still runs: its cost is part of every request).
  RATE_LIMIT_PER_TOKEN: '10000000',
  RATE_LIMIT_PER_ADDRESS: '10000000',
  // The seeded messages are over an hour old, so the alert engine's timer would re-evaluate 10,000 silent things
  // every 30 s, in the middle of some windows and not others; its first run (at start, before any load) stays.
  ALERT_INTERVAL_S: '3600',
};

/**
 * Starts the platform on `databaseUrl` in `cwd` (a private temporary directory, so no developer's .env applies)
 * and waits until /healthz answers.
 */
export async function spawnReadPlatform(
  entry: PlatformEntry,
  databaseUrl: string,
  cwd: string,
  env: Record<string, string> = {},
): Promise<ReadPlatform> {
  const handle = spawnChild('platform', process.execPath, [...entry.args, 'serve'], {
    cwd,
    env: { PATH: process.env.PATH, ...readBenchPlatformEnv, DATABASE_URL: databaseUrl, ...env },
  });
  const port = await waitForHttpPort(handle, '/healthz');
  return { process: handle, baseUrl: `http://127.0.0.1:${port}`, stop: () => handle.stop(10_000) };
}
