/**
 * `npm run bench:graphql` (issue 6): GraphQL next to its REST equivalent, in the same run, on the same platform
 * process and the same seeded SQLite store as bench:rest (10,000 things, 1,000,000 messages). A Manager signs in
 * once (the `login` mutation); then, for the `thing` query and the `messages(limit: 100)` query, the REST
 * equivalent and the GraphQL query are loaded in turn (autocannon, 100 connections, 3 s warm-up, 10 s measured),
 * each request for a random seeded TUID. GraphQL requests keep one query text and vary the variables, as real
 * clients do (the server caches parsed and validated documents by query text).
 *
 * Prints requests/s and p50/p99 per target and GraphQL's throughput as a share of REST's; saves JSON to
 * bench/results/graphql-<timestamp>.json. Settings: see bench/lib/read-bench.ts.
 */
import { join } from 'node:path';
import { errorCount, measureLoad, pick, postJson, type LoadResult, type LoadTarget } from '../lib/http-load.js';
import {
  describeErrors,
  endMachineInfo,
  fixed,
  int,
  noiseNotes,
  percent,
  saveJsonReport,
  table,
  verdictWord,
  type MachineInfo,
  type Verdict,
} from '../lib/http-report.js';
import { repoRoot, type PlatformEntry } from '../lib/node-entry.js';
import { killAll, killChildrenOnSignal } from '../lib/processes.js';
import {
  graphqlPath,
  loadTiming,
  log,
  platformEnvOverrides,
  prepareReadRun,
  removeRunFiles,
  selected,
  startPlatform,
} from '../lib/read-bench.js';
import { seedCredentials, seededTuids, type SeededSqlite } from '../lib/seed-store.js';
import { checkRestAnswers, fetchClientToken, messagesLimit, restMessagesTarget, restThingTarget } from '../rest/targets.js';

const targetRatio = 0.6;

const thingQuery =
  'query Thing($tuid: ID!) { thing(tuid: $tuid) { tuid batteryLevel timestamp location { lat lon } gatewayTuid version installationStatus groupId } }';
const messagesQuery = `query Messages($tuid: ID!) { messages(tuid: $tuid, limit: ${messagesLimit}) }`;

interface Pair {
  operation: string;
  rest: LoadResult;
  graphql: LoadResult;
}

interface GraphqlReport {
  startedAt: string;
  machine: MachineInfo;
  timing: typeof loadTiming;
  platformEnvOverrides: Record<string, string>;
  store: string;
  queries: { thing: string; messages: string };
  pairs: Pair[];
  verdicts: Verdict[];
}

async function login(baseUrl: string): Promise<string> {
  const answer = (await postJson(`${baseUrl}${graphqlPath}`, {
    query: 'mutation Login($input: LoginInput!) { login(loginInput: $input) { accessToken } }',
    variables: {
      input: { email: seedCredentials.email, organizationName: seedCredentials.organizationName, password: seedCredentials.password },
    },
  })) as { data?: { login?: { accessToken?: string } }; errors?: unknown };
  const token = answer.data?.login?.accessToken;
  if (typeof token !== 'string') throw new Error(`login failed: ${JSON.stringify(answer).slice(0, 500)}`);
  return token;
}

function graphqlTarget(name: string, query: string, token: string, tuids: readonly string[], answerPrefix: string): LoadTarget {
  const headers = { authorization: `Bearer ${token}`, accept: 'application/json' };
  return {
    name,
    varies: true,
    next: () => ({ method: 'POST', path: graphqlPath, headers, body: JSON.stringify({ query, variables: { tuid: pick(tuids) } }) }),
    // GraphQL answers errors with 200: the body must hold the data (not null) and no errors.
    verifyBody: (body) => body.startsWith(answerPrefix) && !body.includes('"errors"'),
  };
}

/** One request of each query before any load: a wrong answer must fail the run. */
async function checkGraphqlAnswers(baseUrl: string, token: string, tuid: string): Promise<void> {
  const headers = { authorization: `Bearer ${token}` };
  const thing = (await postJson(`${baseUrl}${graphqlPath}`, { query: thingQuery, variables: { tuid } }, headers)) as {
    data?: { thing?: { tuid?: string } };
  };
  if (thing.data?.thing?.tuid !== tuid) throw new Error(`thing query answered ${JSON.stringify(thing).slice(0, 300)}`);
  const messages = (await postJson(`${baseUrl}${graphqlPath}`, { query: messagesQuery, variables: { tuid } }, headers)) as {
    data?: { messages?: unknown[] };
  };
  if (messages.data?.messages?.length !== messagesLimit)
    throw new Error(`messages query answered ${JSON.stringify(messages).slice(0, 300)}`);
}

function judge(pairs: readonly Pair[]): Verdict[] {
  return pairs.map((pair) => {
    const ratio = pair.graphql.requestsPerS / pair.rest.requestsPerS;
    const invalid = errorCount(pair.rest) + errorCount(pair.graphql) > 0;
    return {
      target: `${pair.operation}: GraphQL >= 60 % of REST`,
      met: invalid ? undefined : ratio >= targetRatio,
      detail: `${percent(ratio)} (${int(pair.graphql.requestsPerS)} vs ${int(pair.rest.requestsPerS)} req/s)${invalid ? '; INVALID: a window had errors' : ''}`,
    };
  });
}

function formatReport(report: GraphqlReport): string {
  const { machine, timing } = report;
  const rows: string[][] = [
    ['target', 'req/s', 'p50 ms', 'p99 ms', 'ratio GraphQL/REST', 'server CPU %', 'server CPU µs/req', 'errors', 'verdict vs target'],
  ];
  report.pairs.forEach((pair, index) => {
    const verdict = report.verdicts[index];
    const line = (result: LoadResult, ratio: string, verdictText: string) => [
      result.name,
      int(result.requestsPerS),
      fixed(result.latencyMs.p50),
      fixed(result.latencyMs.p99),
      ratio,
      fixed(result.serverCpuPercent, 0),
      fixed(result.serverCpuMicrosPerRequest, 0),
      describeErrors(result),
      verdictText,
    ];
    rows.push(line(pair.rest, '(REST = 100 %)', ''));
    rows.push(line(pair.graphql, percent(pair.graphql.requestsPerS / pair.rest.requestsPerS), `${verdictWord(verdict)} (>= 60 %)`));
  });
  return [
    '',
    `== GraphQL benchmark (${machine.cpus} CPUs, Node ${machine.node}, platform ${machine.platformEntry})`,
    `autocannon in the bench process: ${timing.connections} connections, warm-up ${timing.warmupS} s, then ${timing.windowS} s measured per target; ` +
      'a random seeded TUID per request (GraphQL: same query text, TUID in the variables)',
    ...(Object.keys(report.platformEnvOverrides).length > 0
      ? [`platform environment overrides: ${JSON.stringify(report.platformEnvOverrides)}`]
      : []),
    '',
    table(rows),
    '',
    `store: SQLite, ${report.store}`,
    `GraphQL queries: ${report.queries.thing}`,
    `                 ${report.queries.messages}`,
    `load generator CPU in the windows: ${report.pairs
      .flatMap((p) => [p.rest, p.graphql])
      .map((r) => `${fixed(r.loadGeneratorCpuPercent, 0)} %`)
      .join(', ')} (of ${machine.cpus * 100} %)`,
    '',
    'targets (issue 6):',
    ...report.verdicts.map((v) => `  ${verdictWord(v).padEnd(20)} ${v.target}: ${v.detail}`),
    '',
    ...noiseNotes(machine),
  ].join('\n');
}

async function main(): Promise<void> {
  const startedAt = new Date().toISOString();
  let entry: PlatformEntry | undefined;
  let seed: SeededSqlite | undefined;
  killChildrenOnSignal(async () => removeRunFiles(entry, seed));
  try {
    const prepared = await prepareReadRun();
    ({ entry, seed } = prepared);
    const { machine } = prepared;
    const tuids = seededTuids();
    const platform = await startPlatform(entry, `file:${seed.path}`, seed.workDir);
    const pairs: Pair[] = [];
    try {
      const clientToken = await fetchClientToken(platform.baseUrl);
      const accessToken = await login(platform.baseUrl);
      await checkRestAnswers(platform.baseUrl, clientToken, tuids[0]!);
      await checkGraphqlAnswers(platform.baseUrl, accessToken, tuids[0]!);
      const operations = [
        {
          operation: 'thing',
          rest: restThingTarget(clientToken, tuids),
          graphql: graphqlTarget('GraphQL thing(tuid)', thingQuery, accessToken, tuids, '{"data":{"thing":{'),
        },
        {
          operation: `messages(limit: ${messagesLimit})`,
          rest: restMessagesTarget(clientToken, tuids),
          graphql: graphqlTarget(
            `GraphQL messages(tuid, limit: ${messagesLimit})`,
            messagesQuery,
            accessToken,
            tuids,
            '{"data":{"messages":[',
          ),
        },
      ];
      for (const { operation, rest, graphql } of operations) {
        if (!selected(rest) && !selected(graphql)) continue;
        log(`${rest.name}: warm-up ${loadTiming.warmupS} s, window ${loadTiming.windowS} s`);
        const restResult = await measureLoad(platform.baseUrl, rest, loadTiming, platform.process.pid);
        log(`${graphql.name}: warm-up ${loadTiming.warmupS} s, window ${loadTiming.windowS} s`);
        const graphqlResult = await measureLoad(platform.baseUrl, graphql, loadTiming, platform.process.pid);
        pairs.push({ operation, rest: restResult, graphql: graphqlResult });
      }
    } finally {
      await platform.stop();
    }
    endMachineInfo(machine);
    const report: GraphqlReport = {
      startedAt,
      machine,
      timing: loadTiming,
      platformEnvOverrides,
      store: seed.note,
      queries: { thing: thingQuery, messages: messagesQuery },
      pairs,
      verdicts: judge(pairs),
    };
    process.stdout.write(`${formatReport(report)}\n`);
    process.stdout.write(`\nresults saved to ${saveJsonReport(join(repoRoot, 'bench/results'), 'graphql', startedAt, report)}\n`);
    if (pairs.some((p) => errorCount(p.rest) + errorCount(p.graphql) > 0)) {
      process.stdout.write('\nINVALID: at least one window had errors (see the errors column); its figures do not count.\n');
      process.exitCode = 1;
    }
  } finally {
    await killAll();
    removeRunFiles(entry, seed);
  }
}

await main();
