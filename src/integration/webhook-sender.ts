import { lookup } from 'node:dns/promises';
import { Pool } from 'undici';
import { literalHost, refusedAddress, type AddressAllowList } from '../domain/webhooks/address-rules.js';

/** What one attempt gave: a status (null when no answer came), the time, an error, and at most 4 KB of the body. */
export interface SendResult {
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
  /** Retry-After of a 429 or 503, in seconds. */
  retryAfterS: number | null;
}

const excerptBytes = 4096;

/** What a receiver answered: its status, Retry-After, and at most `excerptBytes` of its body. */
interface Answer {
  statusCode: number;
  retryAfter: string | undefined;
  excerpt: string | null;
}

/** An attempt's deadline: `expired` settles it as timed out; `done` once it has settled either way. */
interface Deadline {
  at: number;
  expired: () => void;
  done: boolean;
}

const timeoutError = () => new DOMException('The operation was aborted due to timeout', 'TimeoutError');
const idlePoolMs = 60_000;
/** Entries kept by each of the sender's memos (URLs, address checks); cleared whole when full. */
const memoSize = 10_000;

/**
 * Sends webhook requests (SPEC section 11, Safety and Delivery). At each attempt the host is resolved and every
 * address checked (address-rules.ts); the request then goes to the first checked address through a keep-alive
 * pool (undici) whose connections are made to that address only: its `lookup` answers the checked address, so no
 * second resolution can swap it, while the Host header and the TLS server name stay the URL's. Redirects are never
 * followed (undici's pool does not), and the whole attempt is bounded by WEBHOOK_TIMEOUT_MS.
 */
export class WebhookSender {
  private readonly pools = new Map<string, { pool: Pool; usedAt: number }>();
  private readonly sweeper: NodeJS.Timeout;
  /**
   * A backlog drains at thousands of attempts a second, so what is the same at every attempt is worked out once:
   * the URL's parts, and each address's verdict (a pure function of the address and WEBHOOK_ALLOW_PRIVATE). The
   * name is still resolved at every attempt, and every address it gives is checked.
   */
  private readonly targets = new Map<string, { url: URL; literal: string | undefined } | undefined>();
  private readonly verdicts = new Map<string, string | undefined>();
  /** Attempts in flight, oldest deadline first (one timeout for all: the deadlines come in the order they were set). */
  private readonly deadlines: Deadline[] = [];
  private deadlineTimer: NodeJS.Timeout | undefined;

  constructor(private readonly options: { allow: AddressAllowList; timeoutMs: number; connections: number }) {
    this.sweeper = setInterval(() => this.closeIdle(), idlePoolMs);
    this.sweeper.unref();
  }

  /**
   * Sends one attempt. `lane` names whose connections it uses (the endpoint): two endpoints on one host never share
   * a connection, so one that hangs cannot take the connections the other needs (SPEC 11: endpoints are isolated).
   */
  async send(url: string, headers: Record<string, string>, body: string, lane = ''): Promise<SendResult> {
    const started = performance.now();
    const failed = (error: string, statusCode: number | null = null): SendResult => ({
      statusCode,
      durationMs: performance.now() - started,
      error,
      responseExcerpt: null,
      retryAfterS: null,
    });
    const parsed = this.targetOf(url);
    if (!parsed) return failed('invalid url');
    const { url: target, literal } = parsed;
    let address: { address: string; family: number };
    try {
      const addresses =
        literal !== undefined
          ? [{ address: literal, family: literal.includes(':') ? 6 : 4 }]
          : await lookup(target.hostname, { all: true });
      if (addresses.length === 0) return failed('no address');
      for (const candidate of addresses) {
        const refused = this.verdictOf(candidate.address);
        if (refused) return failed(`address refused: ${candidate.address} is a ${refused}`);
      }
      address = addresses[0]!;
    } catch (error) {
      return failed(`cannot resolve ${target.hostname}: ${(error as { code?: string }).code ?? (error as Error).message}`);
    }
    const pool = this.poolFor(lane, target.origin, address);
    try {
      const answer = await this.post(pool, `${target.pathname}${target.search}`, headers, body);
      const ok = answer.statusCode >= 200 && answer.statusCode < 300;
      return {
        statusCode: answer.statusCode,
        durationMs: performance.now() - started,
        error: ok
          ? null
          : answer.statusCode >= 300 && answer.statusCode < 400
            ? `redirect not followed (${answer.statusCode})`
            : `HTTP ${answer.statusCode}`,
        responseExcerpt: answer.excerpt,
        retryAfterS: answer.statusCode === 429 || answer.statusCode === 503 ? retryAfterSeconds(answer.retryAfter) : null,
      };
    } catch (error) {
      const e = error as { name?: string; code?: string; message?: string };
      const timedOut = e.name === 'TimeoutError' || e.code === 'UND_ERR_HEADERS_TIMEOUT' || e.code === 'UND_ERR_BODY_TIMEOUT';
      return failed(timedOut ? `timeout after ${this.options.timeoutMs} ms` : (e.code ?? e.message ?? 'request failed'));
    }
  }

  /**
   * One POST through undici's handler interface rather than `request`: no response stream, abort signal or promise
   * per chunk, which a backlog draining at thousands of attempts a second would pay at each one. The answer's body
   * is kept up to its excerpt; a longer one ends the request there (its connection is not reused). The deadline
   * (WEBHOOK_TIMEOUT_MS from the start, whether the request still waits for a connection or is sent) aborts it.
   */
  private post(pool: Pool, path: string, headers: Record<string, string>, body: string): Promise<Answer> {
    return new Promise<Answer>((resolve, reject) => {
      let abort: ((error: Error) => void) | undefined;
      let timedOut = false;
      const deadline = this.deadline(() => {
        // Still waiting for a connection: aborted as soon as it has one (onConnect); the attempt ends now.
        timedOut = true;
        abort?.(timeoutError());
        settle(timeoutError());
      });
      let statusCode = 0;
      let retryAfter: string | undefined;
      const chunks: Buffer[] = [];
      let size = 0;
      const settle = (error: Error | undefined) => {
        if (deadline.done) return;
        deadline.done = true;
        if (error && statusCode === 0) return reject(error);
        // A body cut short (the excerpt is full, or the receiver broke off) still gives what came.
        resolve({ statusCode, retryAfter, excerpt: size === 0 ? null : Buffer.concat(chunks).subarray(0, excerptBytes).toString('utf8') });
      };
      pool.dispatch(
        {
          path,
          method: 'POST',
          headers: { 'content-type': 'application/json', 'user-agent': 'thingdesk-webhooks', ...headers },
          body,
        },
        {
          onConnect: (abortRequest) => {
            if (timedOut) abortRequest(timeoutError());
            else abort = abortRequest;
          },
          onError: (error) => settle(error),
          onHeaders: (status, rawHeaders) => {
            // 1xx answers come before the final one.
            if (status < 200) return true;
            statusCode = status;
            for (let i = 0; i + 1 < rawHeaders.length; i += 2)
              if (rawHeaders[i]!.toString('latin1').toLowerCase() === 'retry-after') retryAfter = rawHeaders[i + 1]!.toString('latin1');
            return true;
          },
          onData: (chunk) => {
            chunks.push(chunk);
            size += chunk.length;
            if (size >= excerptBytes) {
              settle(undefined);
              abort?.(new Error('excerpt complete'));
            }
            return true;
          },
          onComplete: () => settle(undefined),
        },
      );
    });
  }

  private targetOf(url: string): { url: URL; literal: string | undefined } | undefined {
    if (this.targets.has(url)) return this.targets.get(url);
    let target: { url: URL; literal: string | undefined } | undefined;
    try {
      const parsed = new URL(url);
      target = { url: parsed, literal: literalHost(parsed) };
    } catch {
      target = undefined;
    }
    if (this.targets.size >= memoSize) this.targets.clear();
    this.targets.set(url, target);
    return target;
  }

  private verdictOf(address: string): string | undefined {
    if (this.verdicts.has(address)) return this.verdicts.get(address);
    const verdict = refusedAddress(address, this.options.allow);
    if (this.verdicts.size >= memoSize) this.verdicts.clear();
    this.verdicts.set(address, verdict);
    return verdict;
  }

  /**
   * The bound of one whole attempt (WEBHOOK_TIMEOUT_MS): an abort at the deadline. One timer serves every attempt in
   * flight (AbortSignal.timeout's timer and weak references for each cost a drain a good part of its time).
   */
  private deadline(expired: () => void): Deadline {
    // Attempts mostly end in the order they began: the ended ones at the front go now, not at the next expiry.
    while (this.deadlines[0]?.done) this.deadlines.shift();
    const entry: Deadline = { at: performance.now() + this.options.timeoutMs, expired, done: false };
    this.deadlines.push(entry);
    this.deadlineTimer ??= setTimeout(() => this.expire(), this.options.timeoutMs).unref();
    return entry;
  }

  private expire(): void {
    this.deadlineTimer = undefined;
    const now = performance.now();
    let ended = 0;
    while (ended < this.deadlines.length && (this.deadlines[ended]!.done || this.deadlines[ended]!.at <= now)) {
      const entry = this.deadlines[ended]!;
      if (!entry.done) entry.expired();
      ended += 1;
    }
    this.deadlines.splice(0, ended);
    const next = this.deadlines.find((d) => !d.done);
    if (!next) {
      this.deadlines.length = 0;
      return;
    }
    this.deadlineTimer = setTimeout(() => this.expire(), Math.max(1, next.at - now)).unref();
  }

  async close(): Promise<void> {
    clearInterval(this.sweeper);
    clearTimeout(this.deadlineTimer);
    const pools = [...this.pools.values()];
    this.pools.clear();
    await Promise.all(pools.map(({ pool }) => pool.destroy().catch(() => undefined)));
  }

  private poolFor(lane: string, origin: string, address: { address: string; family: number }): Pool {
    const key = `${lane}|${origin}|${address.address}`;
    let entry = this.pools.get(key);
    if (!entry) {
      const checked = address;
      const pool = new Pool(origin, {
        connections: this.options.connections,
        headersTimeout: this.options.timeoutMs,
        bodyTimeout: this.options.timeoutMs,
        connect: {
          timeout: this.options.timeoutMs,
          // Every connection of this pool goes to the address that was checked.
          lookup: ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
            if (options?.all) callback(null, [{ address: checked.address, family: checked.family }]);
            else callback(null, checked.address, checked.family);
          }) as never,
        },
      });
      this.pools.set(key, (entry = { pool, usedAt: Date.now() }));
    }
    entry.usedAt = Date.now();
    return entry.pool;
  }

  private closeIdle(): void {
    const now = Date.now();
    for (const [key, entry] of this.pools) {
      if (now - entry.usedAt < idlePoolMs) continue;
      this.pools.delete(key);
      void entry.pool.close().catch(() => undefined);
    }
  }
}

function retryAfterSeconds(text: string | undefined): number | null {
  if (text === undefined) return null;
  if (/^\d+$/.test(text.trim())) return Number(text.trim());
  const at = Date.parse(text);
  return Number.isNaN(at) ? null : Math.max(0, (at - Date.now()) / 1000);
}
