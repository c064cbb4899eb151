/** The alert kinds of SPEC section 7; the strings are what clients see as `alert_type`. */
export const alertTypes = ['gateway connection lost', 'device connection lost', 'battery low'] as const;
export type AlertType = (typeof alertTypes)[number];

/** One period of one alert on one thing. Times in milliseconds on the platform's clock; `closedAt` null while active. */
export interface AlertPeriod {
  organizationId: string;
  tuid: string;
  alertType: AlertType;
  openedAt: number;
  closedAt: number | null;
}

/** A period the alert engine opened (`closedAt` null) or closed; `gatewayTuid` names the gateway of a gateway alert. */
export interface AlertChange extends AlertPeriod {
  gatewayTuid: string | null;
}
