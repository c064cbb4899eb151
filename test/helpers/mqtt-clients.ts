import { connectAsync, type IClientOptions, type MqttClient } from 'mqtt';

const open: MqttClient[] = [];

/**
 * Connects a test MQTT client (MQTT 3.1.1 unless `protocolVersion` says 5), without automatic
 * reconnects so a refused connection fails the test instead of retrying. Closed by `closeMqttClients`.
 */
export async function connectMqtt(url: string, options: IClientOptions = {}): Promise<MqttClient> {
  const client = await connectAsync(url, { protocolVersion: 4, reconnectPeriod: 0, connectTimeout: 5000, ...options });
  open.push(client);
  return client;
}

export async function closeMqttClients(): Promise<void> {
  await Promise.all(open.splice(0).map((client) => client.endAsync(true).catch(() => undefined)));
}

/** Collects the messages arriving on a client, with a way to wait for a count. */
export function collectMessages(client: MqttClient): {
  received: { topic: string; payload: string }[];
  waitFor(count: number, timeoutMs?: number): Promise<void>;
} {
  const received: { topic: string; payload: string }[] = [];
  client.on('message', (topic, payload) => received.push({ topic, payload: payload.toString('utf8') }));
  return {
    received,
    async waitFor(count, timeoutMs = 5000) {
      const deadline = Date.now() + timeoutMs;
      while (received.length < count) {
        if (Date.now() > deadline)
          throw new Error(`expected ${count} messages, got ${received.length}: ${JSON.stringify(received.slice(0, 5))}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
  };
}

/** Polls until `probe` returns a value other than undefined, or fails after `timeoutMs`. */
export async function eventually<T>(probe: () => Promise<T | undefined> | T | undefined, timeoutMs = 5000, what = 'condition'): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = await probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/**
 * The QoS the broker granted for each filter, subscribed one at a time: 128 where it refused. (mqtt.js rejects
 * the whole call on a refusal, so a batch would hide which filter was refused.)
 */
export async function grantedQos(client: MqttClient, filters: string[]): Promise<number[]> {
  const granted: number[] = [];
  for (const filter of filters) {
    try {
      const [grant] = await client.subscribeAsync(filter, { qos: 1 });
      granted.push(grant?.qos ?? -1);
    } catch (error) {
      if (!/Subscribe error/.test((error as Error).message)) throw error;
      granted.push(128);
    }
  }
  return granted;
}
