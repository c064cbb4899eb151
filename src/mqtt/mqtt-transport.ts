/** A message received on an uplink topic, handed to the ingest pipeline. */
export interface UplinkDelivery {
  topic: string;
  organizationId: string;
  gatewayTuid: string;
  payload: Buffer;
  /** The MQTT username of the publisher when the platform knows it (embedded broker). */
  username: string | null;
}

/**
 * Resolves once the uplink is committed (then the transport acknowledges it); rejects when it could not be,
 * and the transport leaves it unacknowledged so the sender or broker delivers it again.
 */
export type UplinkHandler = (delivery: UplinkDelivery) => Promise<void>;

/**
 * The platform's MQTT connection, embedded broker or external broker alike: it feeds uplinks to a handler and
 * publishes downlinks, the data feed and alert events. It only moves bytes: no rule of the platform lives here.
 */
export interface MqttTransport {
  readonly mode: 'embedded' | 'external';
  start(): Promise<void>;
  /** Stops taking uplinks and closes connections; in-flight uplinks finish first. */
  stop(): Promise<void>;
  publish(topic: string, payload: string | Buffer, qos: 0 | 1): Promise<void>;
  /** Throws when the broker cannot be used (readiness). */
  ping(): Promise<void>;
  /** The embedded broker's bound port (differs from MQTT_PORT when that is 0); undefined for an external broker. */
  readonly port: number | undefined;
  /** External broker: the consumer side's figures (slots held, uplinks in flight, the oldest one's wait). */
  consumerStats?(): { slotsHeld: number; slots: number[]; inFlight: number; lagMs: number };
  /** Embedded broker: connected clients by credential kind (metrics). */
  connectionsByKind?(): Record<string, number>;
}
