import WebSocket from 'ws';

/**
 * A GraphQL `messages` subscriber for the relay benchmark: signs in as the bench's Manager, subscribes on one
 * instance to the messages of one group (a sample of things), and notes when each message (tuid and tsmTs) arrived here (ms, monotonic clock of
 * this process, so arrivals on two instances compare directly). A message is its tuid, tsmTs and tsmId.
 */
export class LiveSubscriber {
  readonly arrivals = new Map<string, number>();
  duplicates = 0;
  private socket: WebSocket | undefined;

  constructor(
    private readonly httpPort: number,
    private readonly credentials: { email: string; password: string; organizationName: string },
  ) {}

  /** Follows one group's things (one subscription: what a dashboard of a site holds). */
  async start(groupId: string): Promise<void> {
    const token = await this.signIn();
    const socket = new WebSocket(`ws://127.0.0.1:${this.httpPort}/v1/graphql`, 'graphql-transport-ws');
    this.socket = socket;
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => socket.send(JSON.stringify({ type: 'connection_init', payload: { Authorization: `Bearer ${token}` } })));
      socket.once('close', (code) => reject(new Error(`subscriber closed: ${code}`)));
      socket.on('message', (data) => {
        const message = JSON.parse(String(data)) as {
          type: string;
          payload?: { data?: { messages?: { tsmTuid: string; tsmTs: number; tsmId: number } } };
        };
        if (message.type === 'connection_ack') resolve();
        const received = message.payload?.data?.messages;
        if (message.type !== 'next' || !received) return;
        const key = `${received.tsmTuid} ${received.tsmTs} ${received.tsmId}`;
        if (this.arrivals.has(key)) this.duplicates += 1;
        else this.arrivals.set(key, performance.now());
      });
    });
    socket.send(
      JSON.stringify({
        id: 's',
        type: 'subscribe',
        payload: { query: 'subscription($g: String) { messages(groupId: $g) }', variables: { g: groupId } },
      }),
    );
  }

  stop(): void {
    this.socket?.terminate();
  }

  private async signIn(): Promise<string> {
    const response = await fetch(`http://127.0.0.1:${this.httpPort}/v1/graphql`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        query: 'mutation($i: LoginInput!) { login(loginInput: $i) { accessToken } }',
        variables: { i: this.credentials },
      }),
    });
    const body = (await response.json()) as { data?: { login?: { accessToken: string } } };
    const token = body.data?.login?.accessToken;
    if (!token) throw new Error(`bench sign-in failed: ${JSON.stringify(body)}`);
    return token;
  }
}
