/**
 * bench:audit's second part (issue 37): mutation latency as an API client sees it, over HTTP on loopback, with
 * recording against without. The same platform both ways, in this process; without recording its store's
 * `transaction` just runs the work and `audit.append` does nothing (unrecorded-store.ts). Installation status and
 * group assignment alternate as in run.ts, BENCH_MUTATIONS (2,000) a run after 200 to warm up, one at a time; p50 and
 * p99, medians of BENCH_RUNS (3) runs, the two variants interleaved. The embedded path always, PostgreSQL (behind
 * BENCH_MQTT_URL, Mosquitto on 1883 unless set) when BENCH_DATABASE_URL is set.
 *
 *   npm run bench:audit
 */
import { rmSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { postgresBase, startPlatform, type Variant } from '../rules/rules-platform.js';
import { unrecorded } from './unrecorded-store.js';

const runs = Number(process.env.BENCH_RUNS ?? 3);
const mutations = Number(process.env.BENCH_MUTATIONS ?? 2_000);
const warmUp = 200;

function quantile(values: number[], q: number): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))]!;
}
const median = (values: number[]) => quantile(values, 0.5);

async function mutationRun(variant: Variant, recorded: boolean): Promise<{ p50: number; p99: number }> {
  const platform = await startPlatform(variant, {}, recorded ? {} : { wrapStore: unrecorded });
  try {
    for (const group of ['g-a', 'g-b']) await platform.api('/groups', { group_id: group });
    for (let i = 0; i < 100; i++) await platform.api(`/things/B-${i}/installations`, { installation_status: 'new' });
    const statuses = ['installed', 'uninstalled'] as const;
    const groups = ['g-a', 'g-b'] as const;
    const times: number[] = [];
    for (let i = 0; i < warmUp + mutations; i++) {
      const tuid = `B-${i % 100}`;
      const block = Math.floor(i / 200) % 2;
      const started = performance.now();
      if (i % 2 === 0) await platform.api(`/things/${tuid}/installations`, { installation_status: statuses[block] });
      else await platform.api(`/things/${tuid}/group`, { group_id: groups[block] });
      if (i >= warmUp) times.push(performance.now() - started);
    }
    return { p50: quantile(times, 0.5), p99: quantile(times, 0.99) };
  } finally {
    await platform.client.endAsync();
    await platform.app.stop();
    await platform.drop();
    rmSync(platform.dir, { recursive: true, force: true });
  }
}

const variants: Variant[] = postgresBase ? ['embedded', 'postgres'] : ['embedded'];
for (const variant of variants) {
  const without: { p50: number; p99: number }[] = [];
  const withRecording: { p50: number; p99: number }[] = [];
  for (let run = 0; run < runs; run++) {
    without.push(await mutationRun(variant, false));
    withRecording.push(await mutationRun(variant, true));
  }
  const p50 = [median(without.map((r) => r.p50)), median(withRecording.map((r) => r.p50))] as const;
  const p99 = [median(without.map((r) => r.p99)), median(withRecording.map((r) => r.p99))] as const;
  console.log(`${variant}: mutation latency over HTTP, ${mutations} calls (status and group alternating), medians of ${runs}`);
  console.log(`  without recording      p50 ${p50[0].toFixed(3)} ms   p99 ${p99[0].toFixed(3)} ms`);
  console.log(`  with recording         p50 ${p50[1].toFixed(3)} ms   p99 ${p99[1].toFixed(3)} ms`);
  console.log(`  with / without         p50 ${(p50[1] / p50[0]).toFixed(3)}      p99 ${(p99[1] / p99[0]).toFixed(3)}`);
  console.log(`  runs (p50 without/with): ${without.map((w, i) => `${w.p50.toFixed(2)}/${withRecording[i]!.p50.toFixed(2)}`).join(', ')}`);
}
console.log(
  `host load average ${loadavg()
    .map((l) => l.toFixed(1))
    .join(' ')} on ${availableParallelism()} cores`,
);
