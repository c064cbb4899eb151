import { Worker } from 'node:worker_threads';

// The sampler's own code: a thread of its own, so that it samples while the main thread is busy.
const samplerCode = `
const { parentPort } = require('node:worker_threads');
let peak = process.memoryUsage.rss();
setInterval(() => { peak = Math.max(peak, process.memoryUsage.rss()); }, 20).unref();
parentPort.on('message', (message) => {
  if (message === 'reset') peak = process.memoryUsage.rss();
  parentPort.postMessage(peak);
});
`;

/**
 * The process's peak RSS (bytes), sampled every 20 ms in a worker thread. A timer on the main thread misses the
 * peaks of work that never yields to the event loop's timers: on SQLite (better-sqlite3 answers at once) a whole
 * import runs on promise continuations, and such a sampler saw no growth at all. RSS is the process's, threads
 * included; the sampler's own thread is in the baseline.
 */
export async function rssPeakSampler(): Promise<{ reset(): Promise<number>; peak(): Promise<number>; stop(): Promise<void> }> {
  const worker = new Worker(samplerCode, { eval: true });
  const ask = (message: 'reset' | 'peak') =>
    new Promise<number>((resolve) => {
      worker.once('message', resolve);
      worker.postMessage(message);
    });
  await ask('reset');
  return { reset: () => ask('reset'), peak: () => ask('peak'), stop: async () => void (await worker.terminate()) };
}
