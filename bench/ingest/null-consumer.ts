/**
 * The broker-alone ceiling for an external broker: consumers that take the fleet's uplinks from a shared
 * subscription and acknowledge them at once (mqtt.js's default handler), like the platform's consumers but with
 * no work. Without a subscriber Mosquitto would only store and drop, which is less work than it does for the
 * platform. Usage: null-consumer.ts URL FILTER CONSUMERS. Prints `{"nullConsumerReady":true}`; exits on SIGTERM.
 */
import { connectAsync, type MqttClient } from 'mqtt';

const [url, filter, consumersText] = process.argv.slice(2);
if (url === undefined || filter === undefined) throw new Error('usage: null-consumer.ts URL FILTER [CONSUMERS]');
const clients: MqttClient[] = [];
for (let i = 0; i < Number(consumersText ?? '8'); i++) {
  // Clean sessions: nothing of this consumer outlives it on the shared broker.
  const client = await connectAsync(url, { protocolVersion: 5, clean: true, reconnectPeriod: 0 });
  client.on('error', () => undefined);
  await client.subscribeAsync(`$share/bench-null/${filter}`, { qos: 1 });
  clients.push(client);
}
process.stdout.write(`${JSON.stringify({ nullConsumerReady: true })}\n`);

const shutDown = () => {
  void Promise.all(clients.map((client) => client.endAsync(true))).finally(() => process.exit(0));
  setTimeout(() => process.exit(0), 2000).unref();
};
process.once('SIGTERM', shutDown).once('SIGINT', shutDown);
