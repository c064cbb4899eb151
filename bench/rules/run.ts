/**
 * `npm run bench:rules` (issue 35): what alert rules cost ingest on the embedded path (SQLite, the embedded broker;
 * the platform in this process). Arrays of 10 uplinks of the message id the rules read, as fast as the platform
 * acknowledges them (50 publishes in flight), for BENCH_MESSAGES (20000) messages; with no rule and with 100 enabled
 * rules on that message id (every one read for every message, none crossed). BENCH_CHURN=1 makes ten of them open and
 * close periods on most messages (alert churn: every transition is a period row, a feed message and an event; see
 * docs/decisions.md). With BENCH_DATABASE_URL, the same on PostgreSQL (a scratch schema) behind the external broker
 * BENCH_MQTT_URL (mqtt://127.0.0.1:1883 unless set): there a broker's acknowledgement is not a commit, so the rate
 * runs from the first publish to the last row stored. Each figure is the median of BENCH_RUNS runs (3), in this
 * invocation, the two variants interleaved.
 *
 * The time from an uplink's acknowledgement to its e-mail is bench/rules/notify-latency.ts (`npm run bench:notify`).
 */
import { rmSync } from 'node:fs';
import { externalBroker, postgresBase, startPlatform, type Variant } from './rules-platform.js';

const numberFromEnv = (name: string, fallback: number) => (process.env[name] ? Number(process.env[name]) : fallback);
const runs = numberFromEnv('BENCH_RUNS', 3);
const messages = numberFromEnv('BENCH_MESSAGES', 20_000);
const ruleCount = 100;
const churn = process.env.BENCH_CHURN === '1';

let tsm = 1_700_000_000;
// Readings from 15 to 25; no rule's threshold is crossed (BENCH_CHURN=1: ten rules at 20 open and close constantly).
const payload = () =>
  JSON.stringify(
    Array.from({ length: 10 }, (_, i) => ({ tsmId: 12100, tsmEv: 10, tsmTs: tsm++, tsmTuid: `B-${i}`, temp: 15 + ((tsm * 7) % 11) })),
  );

async function ingestRun(variant: Variant, withRules: boolean): Promise<number> {
  const platform = await startPlatform(variant);
  try {
    if (withRules)
      for (let i = 0; i < ruleCount; i++)
        await platform.api('/alert-rules', {
          name: `bench rule ${i}`,
          tsm_id: 12100,
          field: 'temp',
          op: i % 2 === 0 ? 'gt' : 'lt',
          threshold: churn && i % 10 === 0 ? 20 : i % 2 === 0 ? 1000 + i : -1000 - i,
          for_s: i % 20 === 0 ? 60 : 0,
          severity: 'warning',
        });
    const started = performance.now();
    let next = 0;
    const worker = async () => {
      while (next < messages) {
        next += 10;
        await platform.client.publishAsync('thingdesk/bench/up/GW-1', payload(), { qos: 1 });
      }
    };
    await Promise.all(Array.from({ length: 50 }, worker));
    // Behind an external broker the acknowledgement is the broker's: the run ends when the last row is stored.
    while ((await platform.storedRows(messages)) < messages) await new Promise((resolve) => setTimeout(resolve, 20));
    const rate = messages / ((performance.now() - started) / 1000);
    await platform.app.alertEngine.settled();
    return rate;
  } finally {
    await platform.client.endAsync();
    await platform.app.stop();
    await platform.drop();
    rmSync(platform.dir, { recursive: true, force: true });
  }
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? Number.NaN;
const results: Record<string, number[]> = {};
const record = (name: string, value: number) => (results[name] ??= []).push(value);
const variants: Variant[] = postgresBase ? ['embedded', 'postgres'] : ['embedded'];
if (!postgresBase) process.stderr.write('bench: PostgreSQL + external broker skipped: BENCH_DATABASE_URL is not set\n');
for (let run = 1; run <= runs; run++) {
  for (const variant of variants) {
    const without = await ingestRun(variant, false);
    const withRules = await ingestRun(variant, true);
    record(`${variant}: msg/s without rules`, without);
    record(`${variant}: msg/s with ${ruleCount} rules`, withRules);
    record(`${variant}: ratio`, withRules / without);
  }
  process.stdout.write(`run ${run}/${runs} done\n`);
}
process.stdout.write(
  `\nbench:rules (${churn ? 'churn, ' : ''}medians of ${runs}; ${messages} messages in arrays of 10; embedded: SQLite and the embedded broker; postgres: PostgreSQL and ${externalBroker})\n`,
);
for (const [name, values] of Object.entries(results))
  process.stdout.write(`  ${name.padEnd(40)} ${median(values).toFixed(name.includes('ratio') ? 3 : 1)}\n`);
process.exit(0);
