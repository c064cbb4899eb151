/** The options, progress and report of a simulated fleet run (see fleet.ts). */
import type { LatencySummary } from './latency-recorder.js';
import type { ProtocolVersion, QoS } from './mqtt-connection.js';

export interface FleetOptions {
  /** Broker URL, e.g. mqtt://127.0.0.1:1883. */
  url: string;
  /** One credential for every gateway: a gateway credential of `organizationId`. */
  username?: string;
  password?: string;
  organizationId: string;
  /** Number of gateways, each with its own connection. At least 1. */
  gateways: number;
  /** Total devices, spread evenly over the gateways. At least 1. */
  devices: number;
  /**
   * Messages per second for the whole fleet. 0 sends as fast as acknowledgements allow: each gateway keeps
   * `maxInFlight` publishes unacknowledged and sends another as soon as one is acknowledged.
   */
  rate: number;
  /** Messages per publish, default 1. */
  batchSize?: number;
  /** With batchSize 1, publish a bare JSON object instead of a one-element array (the SPEC accepts both). */
  singleObject?: boolean;
  /** Stop after this many seconds. 0 or absent: no time limit. */
  durationS?: number;
  /** Stop once this many messages are sent and settled. Absent: no message limit. */
  messages?: number;
  /** Default 1. */
  qos?: QoS;
  /**
   * Unix seconds the devices' reports come after (default 0): a fleet that follows another with the same TUIDs
   * passes the earlier fleet's `lastReportTs()`, so that no device repeats a message (same id, time and bytes) the
   * platform already stored.
   */
  reportsAfterTs?: number;
  /** TUID prefix, default "SIM": gateways are `SIM-GW-0001`, devices `SIM-0001-0001`. */
  tuidPrefix?: string;
  /** Default: 5, falling back to 4 (3.1.1) when the broker refuses 5. Given explicitly, no fallback. */
  protocolVersion?: ProtocolVersion;
  /** Client ids are `{clientIdPrefix}-{gatewayTuid}`; the default carries random characters so runs never collide. */
  clientIdPrefix?: string;
  /** Unacknowledged publishes per gateway, default 100 (lower if an MQTT 5 broker's receive maximum says so). */
  maxInFlight?: number;
  /** How long stopping waits for acknowledgements still in flight, default 5000 ms. */
  drainTimeoutMs?: number;
  /** Called about every `progressIntervalMs` (default 1000) while the fleet runs. */
  onProgress?(progress: FleetProgress): void;
  progressIntervalMs?: number;
  /** Called for every publish or connection error (they are also counted in the report). */
  onError?(error: Error, gatewayTuid: string): void;
}

/** Totals across the fleet. */
export interface FleetCounts {
  publishes: number;
  publishesAcked: number;
  messagesSent: number;
  messagesAcked: number;
  commandsReceived: number;
  responsesSent: number;
  errors: number;
}

export interface FleetProgress extends FleetCounts {
  elapsedS: number;
  inFlight: number;
  /** Messages acknowledged per second since the previous progress call. */
  messagesPerSecond: number;
}

/**
 * What a run did. Telemetry only in publishes/messages; command answers are counted in responsesSent. With QoS 0
 * "acknowledged" means written to the socket.
 */
export interface FleetReport extends FleetCounts {
  gateways: number;
  devices: number;
  /** From the first publish to the last acknowledgement (or the stop). */
  durationS: number;
  /** messagesAcked / durationS. */
  messagesPerSecond: number;
  ackLatencyMs: LatencySummary;
}

export interface FleetHandle {
  readonly gatewayTuids: readonly string[];
  readonly deviceTuids: readonly string[];
  /** The protocol version in use, after any fallback. */
  readonly protocolVersion: ProtocolVersion;
  /** Resolves with the report when a stop condition is met or `stop()` was called. Never rejects. */
  readonly finished: Promise<FleetReport>;
  /** The current totals. */
  progress(): FleetProgress;
  /** The newest tsmTs any device reported, Unix seconds (for a fleet that follows this one: `reportsAfterTs`). */
  lastReportTs(): number;
  /**
   * Holds the fleet back (true: nothing new is sent, publishes in flight still settle) or lets it go on (false).
   * For a load generator that must not run further ahead of a consumer than a backlog bound.
   */
  hold(held: boolean): void;
  /** Stops sending, drains the publishes in flight, disconnects; resolves with the report. Idempotent. */
  stop(): Promise<FleetReport>;
}
