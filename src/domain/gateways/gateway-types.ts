/**
 * A gateway as the messages name it (`tsmGw`, the topic's gateway) (SPEC section 16). Times in milliseconds on the
 * platform's clock, by arrival, as the alert engine measures silence.
 */
export interface Gateway {
  gatewayTuid: string;
  lastSeen: number;
  /** When its silence passed GATEWAY_TIMEOUT_S (last seen + the timeout); null while it is online. */
  silentSince: number | null;
  /** Things last heard through it. */
  thingCount: number;
  /** Of those, the ones silent for DEVICE_TIMEOUT_S. */
  thingsSilent: number;
  /** The MQTT credential it last published with; null when not known (an external broker does not say). */
  mqttUsername: string | null;
}

/** The store's filter of the gateways list. */
export interface GatewayListFilter {
  q?: string;
  state?: 'online' | 'silent';
  /** Only this gateway. */
  gatewayTuid?: string;
  afterTuid?: string;
  limit: number;
  /** Arrivals before this are a silent gateway's (now - GATEWAY_TIMEOUT_S). */
  gatewaySilentBefore: number;
  /** Arrivals before this are a silent thing's (now - DEVICE_TIMEOUT_S). */
  thingSilentBefore: number;
}

/** A gateway as the store reads it, before the timeout rule adds `silentSince`. */
export type GatewayRow = Omit<Gateway, 'silentSince'>;
