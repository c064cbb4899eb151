import type { AlertSeverity } from '../alerts/alert-types.js';

/** Alert rules (SPEC section 13): the records of the domain, free of HTTP and SQL. Times are Unix milliseconds. */

/** How a value is compared with the threshold. */
export const ruleOps = ['gt', 'gte', 'lt', 'lte', 'eq', 'ne'] as const;
export type RuleOp = (typeof ruleOps)[number];

/** The symbol each comparison is written with in messages (`temp > 30`). */
export const opSymbols: Readonly<Record<RuleOp, string>> = { gt: '>', gte: '>=', lt: '<', lte: '<=', eq: '=', ne: '!=' };

/** Which things a rule covers; a null list does not narrow (both null: every thing). */
export interface RuleScope {
  groupIds: string[] | null;
  tuids: string[] | null;
}

export interface AlertRule {
  id: string;
  organizationId: string;
  /** Unique in the organization; what its periods show as `alert_type`. */
  name: string;
  tsmId: number;
  /** A dotted path into the message (`env.temp`). */
  field: string;
  op: RuleOp;
  threshold: number;
  /** Hysteresis: the period closes only once the value is back past this; null: the threshold. */
  clearThreshold: number | null;
  /** How long, by arrival time, the condition must hold before the period opens. */
  forS: number;
  scope: RuleScope;
  severity: AlertSeverity;
  enabled: boolean;
  /** Notification channel ids. */
  channels: string[];
  createdAt: number;
  updatedAt: number;
}

/** What a caller gives to create (all required but the optional ones) or change (any) a rule; checked by rule-validation.ts. */
export interface RuleInput {
  name?: unknown;
  tsmId?: unknown;
  field?: unknown;
  op?: unknown;
  threshold?: unknown;
  clearThreshold?: unknown;
  forS?: unknown;
  scope?: unknown;
  severity?: unknown;
  enabled?: unknown;
  channels?: unknown;
}

/** A change of a rule; only the fields given change. */
export type RulePatch = Partial<Omit<AlertRule, 'id' | 'organizationId' | 'createdAt' | 'updatedAt'>>;
