/** One running platform process of the deployment, as it last reported itself. */
export interface InstanceRecord {
  id: string;
  version: string;
  host: string;
  /** Milliseconds since epoch. */
  startedAt: number;
  heartbeatAt: number;
  details: InstanceDetails;
}

/** What an instance runs and how far behind it is, at its last heartbeat. */
export interface InstanceDetails {
  /** `embedded` or `external` broker. */
  mqtt: string;
  /** External broker: consumer slots this instance runs, uplinks in flight, the oldest one's wait (ms). */
  consumer?: { slots: number[]; inFlight: number; lagMs: number };
  /** GraphQL subscriptions open on this instance. */
  liveSubscriptions?: number;
}
