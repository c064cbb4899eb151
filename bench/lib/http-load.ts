/**
 * HTTP load for the read benchmarks: autocannon from the bench process (the server runs in its own process), a
 * warm-up whose figures are thrown away, then the measured window. Requests can vary per request (a random TUID)
 * through `next`, so the server's caches see a realistic spread instead of one hot key. Non-2xx answers,
 * connection errors, timeouts and bodies failing `verifyBody` are counted: a window with any is invalid.
 */
import autocannon from 'autocannon';
import { cpus } from 'node:os';
import { readCpuSeconds } from './proc-stats.js';

export interface LoadRequest {
  method: 'GET' | 'POST';
  path: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface LoadTarget {
  name: string;
  /** The request to send; called for every request when `varies` (else once). */
  next: () => LoadRequest;
  varies: boolean;
  /** A body check (cheap: autocannon keeps the body as a string anyway); false counts as an error. */
  verifyBody?: (body: string) => boolean;
}

export interface LoadTiming {
  connections: number;
  warmupS: number;
  windowS: number;
}

export interface LoadResult {
  name: string;
  requestsPerS: number;
  latencyMs: { p50: number; p90: number; p99: number; max: number; mean: number };
  requests: number;
  durationS: number;
  /** Non-2xx answers, connection errors (incl. timeouts) and body mismatches in the window. */
  errors: { non2xx: number; connection: number; timeouts: number; mismatches: number; statusCodes: Record<string, number> };
  /** CPU of the server process and of this (load-generating) process in the window, percent of one core. */
  serverCpuPercent: number | undefined;
  loadGeneratorCpuPercent: number | undefined;
  /**
   * Server CPU time per request, microseconds: the cost of a request to the server, much less sensitive than
   * req/s to other work on the machine (which takes cores away but does not make a request cost more CPU).
   */
  serverCpuMicrosPerRequest: number | undefined;
  machineCores: number;
}

export function errorCount(result: LoadResult): number {
  return result.errors.non2xx + result.errors.connection + result.errors.mismatches;
}

async function run(baseUrl: string, target: LoadTarget, connections: number, durationS: number): Promise<autocannon.Result> {
  const first = target.next();
  const toRequest = (request: LoadRequest): autocannon.Request => ({
    method: request.method,
    path: request.path,
    headers: { ...request.headers, ...(request.body !== undefined && { 'content-type': 'application/json' }) },
    ...(request.body !== undefined && { body: request.body }),
  });
  return autocannon({
    url: baseUrl,
    connections,
    duration: durationS,
    // The server's own timeouts are far above this; a request taking 10 s is an error, not a latency.
    timeout: 10,
    // autocannon takes the path only per request (the top-level options have none but the URL's).
    // setupRequest gets autocannon's defaults (host, port) and must keep them.
    requests: [
      target.varies ? { setupRequest: (request: autocannon.Request) => ({ ...request, ...toRequest(target.next()) }) } : toRequest(first),
    ],
    ...(target.verifyBody && { verifyBody: (body: autocannon.Request['body']) => target.verifyBody!(String(body ?? '')) }),
  });
}

/** Warm-up (discarded), then the measured window against `baseUrl`; `serverPid` for the server's CPU share. */
export async function measureLoad(
  baseUrl: string,
  target: LoadTarget,
  timing: LoadTiming,
  serverPid: number | undefined,
): Promise<LoadResult> {
  if (timing.warmupS > 0) await run(baseUrl, target, timing.connections, timing.warmupS);
  const serverCpuBefore = serverPid === undefined ? undefined : readCpuSeconds(serverPid);
  const selfCpuBefore = process.cpuUsage();
  const started = performance.now();
  const result = await run(baseUrl, target, timing.connections, timing.windowS);
  const elapsedS = (performance.now() - started) / 1000;
  const serverCpuAfter = serverPid === undefined ? undefined : readCpuSeconds(serverPid);
  const selfCpu = process.cpuUsage(selfCpuBefore);
  const serverCpuS = serverCpuBefore === undefined || serverCpuAfter === undefined ? undefined : serverCpuAfter - serverCpuBefore;
  const statusCodes: Record<string, number> = {};
  for (const [code, stats] of Object.entries(result.statusCodeStats ?? {})) statusCodes[code] = stats.count ?? 0;
  return {
    name: target.name,
    requestsPerS: result.requests.total / result.duration,
    latencyMs: {
      p50: result.latency.p50,
      p90: result.latency.p90,
      p99: result.latency.p99,
      max: result.latency.max,
      mean: result.latency.mean,
    },
    requests: result.requests.total,
    durationS: result.duration,
    errors: { non2xx: result.non2xx, connection: result.errors, timeouts: result.timeouts, mismatches: result.mismatches, statusCodes },
    serverCpuPercent: serverCpuS === undefined ? undefined : (serverCpuS / elapsedS) * 100,
    serverCpuMicrosPerRequest:
      serverCpuS === undefined || result.requests.total === 0 ? undefined : (serverCpuS * 1e6) / result.requests.total,
    loadGeneratorCpuPercent: ((selfCpu.user + selfCpu.system) / 1e6 / elapsedS) * 100,
    machineCores: cpus().length,
  };
}

/** A uniformly random element. */
export function pick<T>(items: readonly T[]): T {
  return items[Math.floor(Math.random() * items.length)]!;
}

/** POSTs JSON and returns the parsed answer; throws with the body on a non-2xx status. */
export async function postJson(url: string, body: unknown, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...headers },
    body: JSON.stringify(body),
  });
  const text = await response.text();
  if (!response.ok) throw new Error(`POST ${url}: ${response.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}

/** GETs and returns the parsed answer; throws with the body on a non-2xx status. */
export async function getJson(url: string, headers: Record<string, string> = {}): Promise<unknown> {
  const response = await fetch(url, { headers });
  const text = await response.text();
  if (!response.ok) throw new Error(`GET ${url}: ${response.status} ${text.slice(0, 500)}`);
  return JSON.parse(text);
}
