// Run by heap-growth.test.ts in a process of its own: holds a steady live set while uplink-like objects are made and
// dropped after ~0.7 s (they outlive the scavenges, as parsed uplinks waiting for their commit do), and prints the
// highest heapUsed seen. argv[2]: the percent given to capHeapGrowth (0: V8's own growing factor); argv[3]: how long
// to run, in milliseconds (4000).
import { capHeapGrowth } from '../../src/app/heap-growth.js';

capHeapGrowth(Number(process.argv[2]));
const live: object[] = [];
for (let i = 0; i < 300_000; i++) live.push({ key: `live-${i}`, values: [i, i + 1] });
interface Waiting {
  madeAt: number;
  body: Record<string, unknown>;
}
const waiting: (Waiting | undefined)[] = [];
let oldest = 0;
let made = 0;
let peak = 0;
const start = Date.now();

function tick(): void {
  const now = Date.now();
  if (now - start > Number(process.argv[3] ?? 4000)) {
    process.stdout.write(JSON.stringify({ peakHeapUsed: peak, live: live.length, made }));
    return;
  }
  for (let i = 0; i < 3000; i++, made++) {
    waiting.push({
      madeAt: now,
      body: { tsmId: 1234, tsmTs: now, tsmTuid: `TUID-${made}`, temp: Math.random(), text: 'x'.repeat(100) },
    });
  }
  while (oldest < waiting.length && now - waiting[oldest]!.madeAt > 700) waiting[oldest++] = undefined;
  if (oldest > 100_000) {
    waiting.splice(0, oldest);
    oldest = 0;
  }
  peak = Math.max(peak, process.memoryUsage().heapUsed);
  setTimeout(tick, 5);
}
tick();
