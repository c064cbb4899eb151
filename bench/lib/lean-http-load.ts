/**
 * A lean load generator for answers of a megabyte (a year of hourly points): `connections` loops of node:http GETs
 * on keep-alive sockets, each body checked as its chunks arrive and never decoded. autocannon decodes every body
 * into a string; on a year of hours that cost the load generator twice the server's CPU per request, and on two
 * cores the generator, not the server, set the latency. Gives what autocannon's run gives http-load.ts.
 */
import { Agent, request } from 'node:http';

export interface LeanRun {
  requests: number;
  durationS: number;
  /** Milliseconds. */
  latency: { p50: number; p90: number; p99: number; max: number; mean: number };
  non2xx: number;
  errors: number;
  timeouts: number;
  mismatches: number;
  statusCodes: Record<string, number>;
}

export interface LeanTarget {
  path: string;
  headers: Record<string, string>;
  /** The body as it came, in chunks. */
  verifyChunks: (chunks: readonly Buffer[]) => boolean;
}

const timeoutMs = 10_000;

function get(agent: Agent, url: URL, target: LeanTarget): Promise<{ status: number; chunks: Buffer[] }> {
  return new Promise((resolve, reject) => {
    const outgoing = request(
      { agent, host: url.hostname, port: url.port, path: target.path, headers: target.headers, timeout: timeoutMs },
      (incoming) => {
        const chunks: Buffer[] = [];
        incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
        incoming.on('end', () => resolve({ status: incoming.statusCode ?? 0, chunks }));
        incoming.on('error', reject);
      },
    );
    outgoing.on('timeout', () => outgoing.destroy(Object.assign(new Error('timeout'), { timeout: true })));
    outgoing.on('error', reject);
    outgoing.end();
  });
}

const percentile = (sorted: Float64Array, p: number) =>
  sorted.length === 0 ? 0 : sorted[Math.min(sorted.length - 1, Math.ceil(sorted.length * p) - 1)]!;

export async function runLean(baseUrl: string, target: LeanTarget, connections: number, durationS: number): Promise<LeanRun> {
  const url = new URL(baseUrl);
  const agent = new Agent({ keepAlive: true, maxSockets: connections });
  const latencies: number[] = [];
  const run: LeanRun = {
    requests: 0,
    durationS,
    latency: { p50: 0, p90: 0, p99: 0, max: 0, mean: 0 },
    non2xx: 0,
    errors: 0,
    timeouts: 0,
    mismatches: 0,
    statusCodes: {},
  };
  const started = performance.now();
  const deadline = started + durationS * 1000;
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (performance.now() < deadline) {
          const sent = performance.now();
          try {
            const { status, chunks } = await get(agent, url, target);
            latencies.push(performance.now() - sent);
            run.requests++;
            run.statusCodes[status] = (run.statusCodes[status] ?? 0) + 1;
            if (status < 200 || status > 299) run.non2xx++;
            else if (!target.verifyChunks(chunks)) run.mismatches++;
          } catch (error) {
            run.errors++;
            if ((error as { timeout?: boolean }).timeout) run.timeouts++;
          }
        }
      }),
    );
  } finally {
    agent.destroy();
  }
  run.durationS = (performance.now() - started) / 1000;
  const sorted = Float64Array.from(latencies).sort();
  run.latency = {
    p50: percentile(sorted, 0.5),
    p90: percentile(sorted, 0.9),
    p99: percentile(sorted, 0.99),
    max: percentile(sorted, 1),
    mean: latencies.reduce((sum, value) => sum + value, 0) / Math.max(1, latencies.length),
  };
  return run;
}

/** Occurrences of `part` in a text, counted without allocating (a split of a megabyte made a string per point). */
export function occurrences(text: string, part: string): number {
  let found = 0;
  for (let at = text.indexOf(part); at !== -1; at = text.indexOf(part, at + part.length)) found++;
  return found;
}

/** Occurrences of `part` in a body given in chunks, those across a chunk's edge included. */
export function occurrencesInChunks(chunks: readonly Buffer[], part: string): number {
  const needle = Buffer.from(part);
  const count = (buffer: Buffer) => {
    let found = 0;
    for (let at = buffer.indexOf(needle); at !== -1; at = buffer.indexOf(needle, at + needle.length)) found++;
    return found;
  };
  let found = 0;
  for (let i = 0; i < chunks.length; i++) {
    found += count(chunks[i]!);
    const next = chunks[i + 1];
    // An occurrence across the edge lies within the last length-1 bytes before it and the first length-1 after.
    if (next) found += count(Buffer.concat([chunks[i]!.subarray(-(needle.length - 1)), next.subarray(0, needle.length - 1)]));
  }
  return found;
}
