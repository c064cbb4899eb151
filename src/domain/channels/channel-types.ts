import type { RuleOp } from '../rules/rule-types.js';

/** Notification channels (SPEC section 13): the records of the domain, free of HTTP and SQL. Times are Unix ms. */

export const channelTypes = ['email', 'chat'] as const;
export type ChannelType = (typeof channelTypes)[number];

export interface NotificationChannel {
  id: string;
  organizationId: string;
  name: string;
  type: ChannelType;
  /** E-mail: the recipients' addresses; chat: null. */
  to: string[] | null;
  /** Chat: a Slack-compatible incoming webhook; e-mail: null. */
  url: string | null;
  createdAt: number;
  updatedAt: number;
}

/** What a caller gives to create or change a channel; checked by channel-validation.ts. */
export interface ChannelInput {
  name?: unknown;
  type?: unknown;
  to?: unknown;
  url?: unknown;
}

/** The built-in alert types that may notify channels (`PATCH /organization` `alert_channels`). */
export type AlertChannels = Record<string, string[]>;

/**
 * One notification as it waits in the outbox (a delivery's only event): rendered at enqueue, so the message says
 * what was true when the alert changed. `tuids` lists a digest's things.
 */
export interface ChannelMessage {
  kind: 'alert' | 'digest' | 'test';
  subject: string;
  text: string;
  /** A digest's things, kept so a later opening in its window is added to the same message. */
  digest?: { what: string; severity: string; entries: DigestEntry[] };
}

export interface DigestEntry {
  tuid: string;
  value: number | null;
  at: number;
}

/** What the outbox writer needs to know of a rule to word its notifications. */
export interface RuleFacts {
  name: string;
  field: string;
  op: RuleOp;
  threshold: number;
}

export interface MessageSettings {
  timeZone: string;
  /** PUBLIC_URL, without a trailing slash; unset: no link. */
  publicUrl: string | undefined;
}

/** Noise control (SPEC section 13): NOTIFY_MIN_INTERVAL_S, NOTIFY_DIGEST_THRESHOLD and the digest window. */
export interface NoiseSettings {
  minIntervalMs: number;
  digestThreshold: number;
  digestWindowMs: number;
}

/**
 * Which channels an alert change notifies, decided in memory at enqueue (the channel view): a rule's `channels`,
 * or the organization's `alert_channels` for a built-in type. `ruleKey` is what noise control counts under.
 */
export interface ChannelRoute {
  ruleKey: string;
  rule: RuleFacts | undefined;
  channelIds: readonly string[];
}

export interface ChannelRouting {
  routeOf(organizationId: string, alertType: string, ruleId: string | undefined): ChannelRoute | undefined;
  messages: MessageSettings;
  noise: NoiseSettings;
}
