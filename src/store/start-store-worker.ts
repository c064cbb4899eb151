import { Worker, type ResourceLimits } from 'node:worker_threads';

/**
 * Starts one of the store's worker threads from `entry`, a module URL without its extension, next to the caller.
 * Compiled, that is the .js file. Under tsx (tests, `npm run dev`) the modules are .ts files, and tsx 4 does not
 * register its loader in worker threads on Node 20 (the worker inherits `--import tsx`, yet fails on the .ts
 * entry), so the worker starts from a two-line script that registers tsx and then imports the .ts source.
 */
export function startStoreWorker(entry: URL, workerData: unknown, resourceLimits: ResourceLimits): Worker {
  if (!import.meta.url.endsWith('.ts')) return new Worker(new URL(`${entry.href}.js`), { workerData, resourceLimits });
  const source = `${entry.href}.ts`;
  const code = `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(source)}); });`;
  return new Worker(code, { eval: true, workerData, resourceLimits });
}
