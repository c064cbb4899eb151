/**
 * Opening one simulator MQTT connection. Brokers in the field speak MQTT 5, or only 3.1.1, so "5 unless the
 * broker refuses it" is the default, and the broker's receive maximum is read from every CONNACK because mqtt.js
 * does not limit outgoing QoS 1 publishes by it.
 */
import mqtt, { type IConnackPacket, type MqttClient } from 'mqtt';

export type ProtocolVersion = 4 | 5;

/** MQTT delivery guarantee of a publish: at most once, at least once, exactly once. */
export type QoS = 0 | 1 | 2;

export interface ConnectionOptions {
  url: string;
  clientId: string;
  username?: string;
  password?: string;
  protocolVersion: ProtocolVersion;
  connectTimeoutMs?: number;
  /** Called on every CONNACK (first connection and reconnections). */
  onConnack?(connack: IConnackPacket): void;
  /** Called for errors after the connection was established (refused reconnections, socket errors). */
  onError?(error: Error): void;
}

/** The CONNACK codes of "this broker does not speak that protocol version" in MQTT 3.1.1 (1) and 5 (132). */
const unsupportedVersionCodes: ReadonlySet<number> = new Set([1, 132]);

/**
 * CONNACK codes that say "these credentials will not do", in MQTT 3.1.1 (4 bad username or password, 5 not
 * authorized) and 5 (0x86, 0x87, 0x8C bad authentication method). Retrying them changes nothing, so a client stops.
 * Every other refusal (3 / 0x88 server unavailable, 0x89 server busy, 0x97 quota exceeded, 0x9F connection rate
 * exceeded, ...) is temporary: the platform answers 3 / 0x88 while its store is unreachable, so a client retries.
 */
const permanentRefusalCodes: ReadonlySet<number> = new Set([4, 5, 0x86, 0x87, 0x8c]);

/** True when a refused CONNECT will be refused again whatever the wait (see permanentRefusalCodes). */
export function isPermanentRefusal(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && permanentRefusalCodes.has(code);
}

/** True when a connection attempt failed only because the broker refused the protocol version. */
export function isUnsupportedProtocolVersion(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'number' && unsupportedVersionCodes.has(code);
}

/**
 * Connects once and resolves with a client that reconnects by itself after later drops (every second), or
 * rejects with the first error (refused, unreachable, timed out), leaving nothing open. A later reconnection the
 * broker refuses for a temporary reason (its store down: 3 / 0x88) is retried too, as a gateway in the field must;
 * one refused for its credentials stops the client. Later errors go to `onError` (or are dropped): an MQTT client
 * without an 'error' listener would crash the process.
 */
export function connectClient(options: ConnectionOptions): Promise<MqttClient> {
  const client = mqtt.connect(options.url, {
    clientId: options.clientId,
    username: options.username,
    password: options.password,
    protocolVersion: options.protocolVersion,
    clean: true,
    reconnectPeriod: 1000,
    // mqtt.js stops reconnecting after any refused CONNECT unless told otherwise.
    reconnectOnConnackError: true,
    connectTimeout: options.connectTimeoutMs ?? 10_000,
  });
  if (options.onConnack !== undefined) client.on('connect', options.onConnack);
  return new Promise((resolve, reject) => {
    const fail = (error: Error) => {
      client.off('connect', succeed);
      client.off('close', closedEarly);
      client.removeListener('error', fail);
      client.on('error', () => undefined);
      client.end(true);
      reject(error);
    };
    const closedEarly = () => fail(new Error(`could not connect to ${options.url}`));
    const succeed = () => {
      client.removeListener('error', fail);
      client.off('close', closedEarly);
      client.on('error', (error) => {
        if (isPermanentRefusal(error)) client.end(true);
        options.onError?.(error);
      });
      resolve(client);
    };
    client.once('connect', succeed);
    client.once('error', fail);
    client.once('close', closedEarly);
  });
}
