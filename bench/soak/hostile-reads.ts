/**
 * The hostile reads of `bench:soak --hostile` (issue 32, items 1, 2 and 9): what a signed-in Viewer can ask of the
 * GraphQL read path, and what anyone can ask of sign-in.
 *
 * - `viewer-raw-series-year`: twenty aliased `series(bucket: "raw")` over a year each, the red team's request
 *   (two in parallel): refused whole by the cost budget (COST_LIMIT) before anything reads.
 * - `viewer-raw-series`: the same twenty aliases over the longest raw range the default budget admits (two days,
 *   maxPoints 1000: 20 x 1048), so they run: the reads themselves, bounded by the cost and the caller's cap.
 * - `failing-siblings`: twenty aliased `groupSeries` that each fail (raw over `maxPoints` 1) over 100 days, the
 *   longest range the budget admits (20 x 2401): the answer goes out at the first failure, and the siblings must
 *   stop at their next read instead of reading on for nobody.
 * - `login-flood`: anonymous sign-ins with a fresh e-mail each time and a wrong password, from the attacker's address.
 *
 * Each resolves with how it ended: the HTTP status and the first error's code (`200 ok` when there was none).
 */
import { randomUUID } from 'node:crypto';
import { request as httpRequest, type Agent } from 'node:http';

export interface HostileReadOptions {
  httpBase: string;
  agent: Agent;
  /** The signed-in Viewer's access token. */
  viewerToken: () => string;
  /** TUIDs of things that report `temp` (12100), to read series of. */
  tuids: readonly string[];
  organizationName: string;
}

const yearS = 366 * 86_400;
const dayS = 86_400;

function aliased(count: number, field: (i: number) => string): string {
  return `{ ${Array.from({ length: count }, (_, i) => `a${i}: ${field(i)}`).join(' ')} }`;
}

/** Twenty aliased raw series of `rangeS` seconds up to now, each of another thing. */
export function aliasedRawSeries(tuids: readonly string[], rangeS: number, now = Math.floor(Date.now() / 1000)): string {
  return aliased(
    20,
    (i) =>
      `series(tuid: "${tuids[i % tuids.length]}", tsmId: 12100, field: "temp", from: ${now - rangeS}, to: ${now}, bucket: "raw", maxPoints: 1000) { bucket }`,
  );
}

/** Twenty aliased groupSeries of the things in no group, raw over 100 days with maxPoints 1: each fails. */
export function failingSiblings(now = Math.floor(Date.now() / 1000)): string {
  return aliased(
    20,
    () =>
      `groupSeries(groupId: "unassigned", tsmId: 12100, field: "temp", from: ${now - 100 * dayS}, to: ${now}, bucket: "raw", maxPoints: 1) { bucket }`,
  );
}

export const hostileReads = {
  'viewer-raw-series-year': (options: HostileReadOptions) =>
    graphql(options, aliasedRawSeries(options.tuids, yearS), options.viewerToken()),
  'viewer-raw-series': (options: HostileReadOptions) =>
    graphql(options, aliasedRawSeries(options.tuids, 2 * dayS - 3600), options.viewerToken()),
  'failing-siblings': (options: HostileReadOptions) => graphql(options, failingSiblings(), options.viewerToken()),
  'login-flood': (options: HostileReadOptions) =>
    graphql(options, 'mutation($i: LoginInput!) { login(loginInput: $i) { accessToken } }', undefined, {
      i: { email: `flood-${randomUUID()}@example.test`, password: 'not-the-password', organizationName: options.organizationName },
    }),
} as const;

export type HostileReadName = keyof typeof hostileReads;

/** One GraphQL request from the attacker's address; resolves with its status and first error code. */
function graphql(options: HostileReadOptions, query: string, token?: string, variables?: Record<string, unknown>): Promise<string> {
  return new Promise((resolve, reject) => {
    const headers: Record<string, string> = { 'content-type': 'application/json' };
    if (token) headers.authorization = `Bearer ${token}`;
    const request = httpRequest(`${options.httpBase}/v1/graphql`, { agent: options.agent, method: 'POST', headers }, (response) => {
      const chunks: Buffer[] = [];
      response.on('data', (chunk: Buffer) => chunks.push(chunk));
      response.once('error', reject);
      response.once('end', () => {
        let code = 'ok';
        try {
          const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { errors?: { extensions?: { code?: string } }[] };
          code = body.errors?.[0]?.extensions?.code ?? 'ok';
        } catch {
          code = 'not JSON';
        }
        resolve(`${response.statusCode ?? 0} ${code}`);
      });
    });
    request.once('error', reject);
    request.end(JSON.stringify({ query, variables }));
  });
}
