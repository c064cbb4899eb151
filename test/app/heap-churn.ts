// Run by heap-growth.test.ts in a process of its own: holds a steady live set while uplink-like objects are made and
// dropped 64 rounds later (they outlive the scavenges, as parsed uplinks waiting for their commit do), and prints the
// highest heapUsed seen. The work is counted in rounds, not timed, so a busy host changes how long it takes but not
// what is allocated and when it dies: a CI run beside other tests once made the uncapped side allocate less and the
// two peaks came out close. argv[2]: the percent given to capHeapGrowth (0: V8's own growing factor); argv[3]: how
// many rounds of 3,000 objects to make (370).
import { capHeapGrowth } from '../../src/app/heap-growth.js';

capHeapGrowth(Number(process.argv[2]));
const rounds = Number(process.argv[3] ?? 370);
const live: object[] = [];
for (let i = 0; i < 300_000; i++) live.push({ key: `live-${i}`, values: [i, i + 1] });
const waiting: Record<string, unknown>[][] = [];
let made = 0;
let peak = 0;

function round(n: number): void {
  if (n === rounds) {
    process.stdout.write(JSON.stringify({ peakHeapUsed: peak, live: live.length, made }));
    return;
  }
  const batch: Record<string, unknown>[] = [];
  for (let i = 0; i < 3000; i++, made++) {
    batch.push({ tsmId: 1234, tsmTs: n, tsmTuid: `TUID-${made}`, temp: Math.random(), text: 'x'.repeat(100) });
  }
  waiting.push(batch);
  if (waiting.length > 64) waiting.shift();
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  setImmediate(round, n + 1);
}
round(0);
