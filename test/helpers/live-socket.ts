import WebSocket from 'ws';
import type { TestApp } from './test-app.js';

/** What the server sent on a graphql-transport-ws socket, as parsed messages. */
export interface ServerMessage {
  type: string;
  id?: string;
  payload?: unknown;
}

/**
 * A raw graphql-transport-ws connection, so tests see exactly what the server does: every message, and the close
 * code and reason. `ready` resolves after connection_ack.
 */
export class LiveSocket {
  readonly received: ServerMessage[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;
  readonly ready: Promise<void>;
  readonly socket: WebSocket;

  constructor(server: TestApp, token: string) {
    this.socket = new WebSocket(server.url(server.config.graphqlPath).replace(/^http/, 'ws'), 'graphql-transport-ws');
    this.closed = new Promise((resolve) => this.socket.once('close', (code, reason) => resolve({ code, reason: reason.toString() })));
    this.ready = new Promise((resolve, reject) => {
      this.socket.once('open', () =>
        this.socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } })),
      );
      this.socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as ServerMessage;
        this.received.push(message);
        if (message.type === 'connection_ack') resolve();
      });
      void this.closed.then(({ code }) => reject(new Error(`closed before ack: ${code}`)));
    });
    this.ready.catch(() => undefined);
  }

  subscribe(id: string, query: string, variables?: Record<string, unknown>): void {
    this.socket.send(JSON.stringify({ id, type: 'subscribe', payload: { query, variables } }));
  }

  complete(id: string): void {
    this.socket.send(JSON.stringify({ id, type: 'complete' }));
  }

  /** Messages of one operation, in order. */
  of(id: string): ServerMessage[] {
    return this.received.filter((message) => message.id === id);
  }

  /** Waits until `predicate` holds over what was received, or fails after `timeoutMs`. */
  async waitUntil(predicate: (received: ServerMessage[]) => boolean, timeoutMs = 5000): Promise<void> {
    const deadline = Date.now() + timeoutMs;
    while (!predicate(this.received)) {
      if (Date.now() > deadline) throw new Error(`timed out; received ${JSON.stringify(this.received).slice(0, 500)}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  close(): void {
    this.socket.terminate();
  }
}

/** Resolves with the close, or with undefined when the socket is still open after `ms`. */
export async function closedWithin(socket: LiveSocket, ms: number): Promise<{ code: number; reason: string } | undefined> {
  return Promise.race([socket.closed, new Promise<undefined>((resolve) => setTimeout(() => resolve(undefined), ms))]);
}
