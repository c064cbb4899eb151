/**
 * Steady API readers for the soak run: a fixed number of concurrent loops, each sending one request after the
 * other, counting answers by outcome. Not a load generator (autocannon is): the point is a realistic, constant
 * background of dashboard traffic while the fleet publishes.
 */
export interface ReaderCounts {
  ok: number;
  errors: number;
  /** Status codes other than 200, and network errors, by kind. */
  failures: Map<string, number>;
}

export interface Reader {
  counts: ReaderCounts;
  stop(): Promise<void>;
}

/** `onLatency` gets each successful request's time from send to the end of its body, in milliseconds. */
export function startReader(
  concurrency: number,
  request: () => Promise<Response>,
  onLatency: (milliseconds: number) => void = () => undefined,
): Reader {
  const counts: ReaderCounts = { ok: 0, errors: 0, failures: new Map() };
  let running = true;
  const loop = async () => {
    while (running) {
      try {
        const sentAt = performance.now();
        const response = await request();
        const body = await response.text();
        // A GraphQL error comes with status 200 under application/json; count it as an error too.
        if (response.status === 200 && !body.includes('"errors"')) {
          counts.ok += 1;
          onLatency(performance.now() - sentAt);
        } else fail(counts, `status ${response.status}`);
      } catch (error) {
        fail(counts, (error as Error).message);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
  };
  const loops = Array.from({ length: concurrency }, loop);
  return {
    counts,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

function fail(counts: ReaderCounts, kind: string): void {
  counts.errors += 1;
  counts.failures.set(kind, (counts.failures.get(kind) ?? 0) + 1);
}
