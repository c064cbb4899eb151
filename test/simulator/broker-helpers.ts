/** An in-process aedes broker on port 0 and a collecting subscriber, for the simulator's round-trip tests. */
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import { Aedes, type AedesOptions } from 'aedes';
import mqtt, { type MqttClient } from 'mqtt';

export interface TestBroker {
  url: string;
  close(): Promise<void>;
}

/**
 * Starts aedes (MQTT 3.1.1 and 5) on an ephemeral port: never 1883, which Mosquitto may hold. With `only311`, it
 * answers an MQTT 5 CONNECT as a 3.1.1-only broker does: a 3.1.1 CONNACK with return code 1 (unacceptable
 * protocol version), then the connection closes.
 */
export async function startTestBroker(options: AedesOptions & { only311?: boolean } = {}): Promise<TestBroker> {
  const { only311, ...aedesOptions } = options;
  const broker = await Aedes.createBroker({
    ...aedesOptions,
    ...(only311 && {
      preConnect: (client, packet, done) => {
        if (packet.protocolVersion !== 5) return done(null, true);
        client.conn.end(Buffer.from([0x20, 0x02, 0x00, 0x01]));
        done(new Error('MQTT 5 is not spoken here'), false);
      },
    }),
  });
  const server = net.createServer(broker.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `mqtt://127.0.0.1:${port}`,
    close: async () => {
      await new Promise<void>((resolve) => broker.close(() => resolve()));
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

export interface ReceivedPublish {
  topic: string;
  messages: Record<string, unknown>[];
}

/** A plain mqtt.js client that records every uplink payload (arrays flattened) on `filter`. */
export class UplinkCollector {
  readonly publishes: ReceivedPublish[] = [];
  private constructor(readonly client: MqttClient) {
    client.on('message', (topic, payload) => {
      const body: unknown = JSON.parse(payload.toString('utf8'));
      this.publishes.push({ topic, messages: (Array.isArray(body) ? body : [body]) as Record<string, unknown>[] });
    });
  }

  static async connect(url: string, filter: string): Promise<UplinkCollector> {
    const client = await mqtt.connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0 });
    await client.subscribeAsync(filter, { qos: 1 });
    return new UplinkCollector(client);
  }

  get messages(): Record<string, unknown>[] {
    return this.publishes.flatMap((publish) => publish.messages);
  }

  /** Resolves with the first message matching `predicate`, waiting up to `timeoutMs`. */
  async waitFor(predicate: (message: Record<string, unknown>) => boolean, timeoutMs = 5000): Promise<Record<string, unknown>> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const found = this.messages.find(predicate);
      if (found !== undefined) return found;
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    throw new Error(`no matching message within ${timeoutMs} ms`);
  }

  async close(): Promise<void> {
    await this.client.endAsync();
  }
}
