/**
 * Loopback webhook receivers in a thread of their own, so that answering a thousand POSTs a second does not take
 * the platform's event loop (which the bench shares). Each receiver records every event's delay from its commit (the
 * event's `timestamp`); a hung one never answers; one may be taken down (its port closed) and brought back. On a host
 * whose cores are all busy a request to another thread waits for that thread to be scheduled (tens of ms under a load
 * of 8 per core), which is the host's, not the platform's: BENCH_RECEIVERS=inline runs them on the platform's loop.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isMainThread, parentPort } from 'node:worker_threads';

export type ReceiverRequest =
  | { type: 'start'; id: number; hung: boolean; port?: number }
  | { type: 'stats'; id: number; receiver: number; delays: boolean }
  | { type: 'down' | 'up' | 'close'; id: number; receiver: number };

export interface ReceiverStats {
  events: number;
  /** ms from commit to receipt, per event (only when asked). */
  delays?: number[];
}

interface Receiver {
  server: Server;
  port: number;
  hung: boolean;
  events: number;
  delays: number[];
}

const receivers: Receiver[] = [];

function listen(receiver: Receiver, at: number): Promise<number> {
  return new Promise((resolve) => receiver.server.listen(at, '127.0.0.1', () => resolve((receiver.server.address() as AddressInfo).port)));
}

function serverFor(receiver: () => Receiver): Server {
  return createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (c: Buffer) => chunks.push(c));
    request.on('end', () => {
      const r = receiver();
      if (r.hung) return;
      const now = Date.now();
      const body = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; timestamp: string; data: unknown };
      const list = (body.type === 'batch' ? body.data : [body]) as { timestamp: string }[];
      for (const event of list) r.delays.push(now - Date.parse(event.timestamp));
      r.events += list.length;
      response.end();
    });
  });
}

/** Answers one request (in the thread, or inline when BENCH_RECEIVERS=inline). */
export async function handle(request: ReceiverRequest): Promise<unknown> {
  let answer: unknown;
  if (request.type === 'start') {
    const receiver: Receiver = { server: undefined as never, port: 0, hung: request.hung, events: 0, delays: [] };
    receiver.server = serverFor(() => receiver);
    receiver.port = await listen(receiver, request.port ?? 0);
    receivers.push(receiver);
    answer = { receiver: receivers.length - 1, port: receiver.port };
  } else {
    const receiver = receivers[request.receiver]!;
    if (request.type === 'stats') {
      answer = { events: receiver.events, ...(request.delays && { delays: receiver.delays }) } satisfies ReceiverStats;
    } else if (request.type === 'up') {
      receiver.server = serverFor(() => receiver);
      await listen(receiver, receiver.port);
    } else {
      receiver.server.closeAllConnections();
      await new Promise<void>((resolve) => receiver.server.close(() => resolve()));
    }
  }
  return answer;
}

if (!isMainThread)
  parentPort!.on('message', async (request: ReceiverRequest) => parentPort!.postMessage({ id: request.id, answer: await handle(request) }));
