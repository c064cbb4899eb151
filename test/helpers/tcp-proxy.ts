import { createServer, connect, type Server, type Socket } from 'node:net';

/**
 * A TCP proxy on 127.0.0.1 in front of a real server (PostgreSQL, Mosquitto), for fault tests that must not stop
 * the shared server itself. `cut()` makes the server look gone: every open connection is destroyed and new ones are
 * refused (the listener closes, so a connect fails with ECONNREFUSED); `restore()` listens again on the same port.
 */
export class TcpProxy {
  private server: Server | undefined;
  private readonly sockets = new Set<Socket>();
  private isCut = false;
  private isStalled = false;
  /** Connections accepted so far (a reconnect after a cut shows up here). */
  accepted = 0;
  /**
   * Milliseconds by which what clients send reaches the server (0: at once); answers come back at once. Applies
   * to connections accepted after it is set. A slow link of one instance, for ordering tests.
   */
  delayToServerMs = 0;

  private constructor(
    private readonly target: { host: string; port: number },
    readonly port: number,
  ) {}

  /** Starts a proxy on a free port of 127.0.0.1 forwarding to `host:port`. */
  static async start(target: { host: string; port: number }): Promise<TcpProxy> {
    const probe = createServer();
    await new Promise<void>((resolve, reject) => probe.once('error', reject).listen(0, '127.0.0.1', resolve));
    const address = probe.address();
    await new Promise((resolve) => probe.close(resolve));
    if (typeof address !== 'object' || !address) throw new Error('no port for the proxy');
    const proxy = new TcpProxy(target, address.port);
    await proxy.listen();
    return proxy;
  }

  /** Starts a proxy in front of the host and port of a URL (`postgres://...`, `mqtt://...`). */
  static forUrl(url: string, defaultPort: number): Promise<TcpProxy> {
    const parsed = new URL(url);
    return TcpProxy.start({ host: parsed.hostname || '127.0.0.1', port: parsed.port ? Number(parsed.port) : defaultPort });
  }

  /** The URL with its host and port replaced by the proxy's (credentials, path and query kept). */
  proxiedUrl(url: string): string {
    const parsed = new URL(url);
    parsed.hostname = '127.0.0.1';
    parsed.port = String(this.port);
    return parsed.toString();
  }

  /** Whether the proxy is cut right now. */
  get down(): boolean {
    return this.isCut;
  }

  /** The server "goes down": open connections are destroyed, new ones refused. */
  async cut(): Promise<void> {
    if (this.isCut) return;
    this.isCut = true;
    const server = this.server;
    this.server = undefined;
    for (const socket of this.sockets) socket.destroy();
    this.sockets.clear();
    if (server) await new Promise((resolve) => server.close(resolve));
  }

  /** The server "comes back": connections are accepted and forwarded again. */
  async restore(): Promise<void> {
    if (!this.isCut) return;
    this.isCut = false;
    await this.listen();
  }

  /**
   * The server "hangs" (stopped process, network black hole): connections stay open and new ones are accepted,
   * but nothing is forwarded either way until `unstall()`.
   */
  stall(): void {
    this.isStalled = true;
    for (const socket of this.sockets) socket.pause();
  }

  unstall(): void {
    this.isStalled = false;
    for (const socket of this.sockets) socket.resume();
  }

  /** Destroys every connection and stops listening. */
  async close(): Promise<void> {
    await this.cut();
  }

  private async listen(): Promise<void> {
    const server = createServer((client) => this.forward(client));
    // Re-listening on the port a moment after closing it: retry briefly if the OS has not released it yet.
    for (let attempt = 0; ; attempt++) {
      try {
        await new Promise<void>((resolve, reject) => {
          server.once('error', reject);
          server.listen(this.port, '127.0.0.1', () => {
            server.off('error', reject);
            resolve();
          });
        });
        break;
      } catch (error) {
        if (attempt >= 20 || (error as { code?: string }).code !== 'EADDRINUSE') throw error;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    }
    this.server = server;
  }

  private forward(client: Socket): void {
    if (this.isCut) {
      client.destroy();
      return;
    }
    this.accepted += 1;
    const upstream = connect(this.target.port, this.target.host);
    tieSockets(client, upstream, this.sockets);
    client.setNoDelay(true);
    upstream.setNoDelay(true);
    const delay = this.delayToServerMs;
    // Timers of one duration fire in the order they were set: the bytes keep their order.
    if (delay > 0) client.on('data', (chunk) => setTimeout(() => upstream.write(chunk), delay));
    else client.pipe(upstream);
    upstream.pipe(client);
    if (this.isStalled) {
      client.pause();
      upstream.pause();
    }
  }
}

/**
 * Tracks a client and its upstream connection in `open` and ends both when either ends or fails: a proxy's two
 * sides live and die together.
 */
export function tieSockets(client: Socket, upstream: Socket, open: Set<Socket>): void {
  open.add(client).add(upstream);
  const end = () => {
    client.destroy();
    upstream.destroy();
    open.delete(client);
    open.delete(upstream);
  };
  client.on('error', end).on('close', end);
  upstream.on('error', end).on('close', end);
}
