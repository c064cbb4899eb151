import { Worker } from 'node:worker_threads';
import { handle, type ReceiverRequest, type ReceiverStats } from './receiver-worker.js';

const inline = process.env.BENCH_RECEIVERS === 'inline';

type Request = ReceiverRequest extends infer R ? (R extends { id: number } ? Omit<R, 'id'> : never) : never;

/** The main thread's side of receiver-worker.ts: start receivers, read their counts and delays, take one down. */
export class Receivers {
  // tsx registers itself in the thread first (as src/store/start-store-worker.ts does: Node 20 workers miss its loader).
  private readonly worker = inline
    ? undefined
    : new Worker(
        `import(${JSON.stringify(import.meta.resolve('tsx/esm/api'))}).then((tsx) => { tsx.register(); return import(${JSON.stringify(new URL('./receiver-worker.ts', import.meta.url).href)}); });`,
        { eval: true },
      );
  private nextId = 0;
  private readonly waiting = new Map<number, (answer: unknown) => void>();

  constructor() {
    this.worker?.on('message', ({ id, answer }: { id: number; answer: unknown }) => {
      this.waiting.get(id)?.(answer);
      this.waiting.delete(id);
    });
  }

  private ask<T>(request: Request): Promise<T> {
    if (!this.worker) return handle({ ...request, id: 0 } as ReceiverRequest) as Promise<T>;
    const id = ++this.nextId;
    return new Promise<T>((resolve) => {
      this.waiting.set(id, resolve as (answer: unknown) => void);
      this.worker!.postMessage({ ...request, id });
    });
  }

  async start(hung = false): Promise<Receiver> {
    const { receiver, port } = await this.ask<{ receiver: number; port: number }>({ type: 'start', hung });
    return {
      url: `http://127.0.0.1:${port}/hook`,
      events: async () => (await this.ask<ReceiverStats>({ type: 'stats', receiver, delays: false })).events,
      delays: async () => (await this.ask<ReceiverStats>({ type: 'stats', receiver, delays: true })).delays!,
      down: () => this.ask({ type: 'down', receiver }),
      up: () => this.ask({ type: 'up', receiver }),
      close: () => this.ask({ type: 'close', receiver }),
    };
  }

  async stop(): Promise<void> {
    await this.worker?.terminate();
  }
}

export interface Receiver {
  url: string;
  events(): Promise<number>;
  delays(): Promise<number[]>;
  down(): Promise<unknown>;
  up(): Promise<unknown>;
  close(): Promise<unknown>;
}
