/** The alert kinds of SPEC section 7; the strings are what clients see as `alert_type`. */
export const alertTypes = ['gateway connection lost', 'device connection lost', 'battery low'] as const;
export type AlertType = (typeof alertTypes)[number];

/** How urgent a period is (SPEC section 16); rule alerts (SPEC section 13) choose theirs. */
export const alertSeverities = ['critical', 'warning', 'info'] as const;
export type AlertSeverity = (typeof alertSeverities)[number];

/** The severity of each built-in alert (SPEC section 16): a silent gateway is critical, the rest warnings. */
export const builtInSeverity: Readonly<Record<AlertType, AlertSeverity>> = {
  'gateway connection lost': 'critical',
  'device connection lost': 'warning',
  'battery low': 'warning',
};

/** One period of one alert on one thing. Times in milliseconds on the platform's clock; `closedAt` null while active. */
export interface AlertPeriod {
  organizationId: string;
  tuid: string;
  alertType: AlertType;
  openedAt: number;
  closedAt: number | null;
}

/**
 * A period the alert engine opened (`closedAt` null) or closed; `gatewayTuid` names the gateway of a gateway alert
 * (null for the other types, whose stored gateway is only the one of their opening).
 */
export interface AlertChange extends Omit<AlertPeriod, 'alertType'> {
  /** A built-in type, or the name of the rule that opened the period (SPEC section 13). */
  alertType: AlertType | string;
  gatewayTuid: string | null;
  /** Rule periods only: the rule, its severity and the value that opened the period. */
  rule?: RulePeriodFacts;
}

/** What a rule's period adds to its events (SPEC section 13: `rule_id`, `severity`, `value`). */
export interface RulePeriodFacts {
  ruleId: string;
  severity: AlertSeverity;
  value: number | null;
}
