/** A gateway as the studio reads it (GraphQL `gateways`, `gateway`). Times in Unix seconds. */
export interface Gateway {
  gatewayTuid: string;
  lastSeen: number;
  silentSince: number | null;
  thingCount: number;
  thingsSilent: number;
  mqttUsername: string | null;
}
