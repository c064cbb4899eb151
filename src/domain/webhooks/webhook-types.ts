import type { NotificationChannel } from '../channels/channel-types.js';
import type { AddressAllowList } from './address-rules.js';

/** Webhooks (SPEC section 11): the records of the domain, free of HTTP and SQL. Times are Unix milliseconds. */

export const webhookEventTypes = ['message.stored', 'alert.opened', 'alert.closed', 'command.answered', 'thing.changed'] as const;
export type WebhookEventType = (typeof webhookEventTypes)[number] | 'webhook.test';

export type WebhookHealthState = 'healthy' | 'failing' | 'disabled';

export interface WebhookHealth {
  state: WebhookHealthState;
  failingSince: number | null;
  lastError: string | null;
  lastSuccessAt: number | null;
}

/** An endpoint as stored, its secrets sealed (never shown but at creation and rotation). */
export interface WebhookEndpoint {
  id: string;
  organizationId: string;
  url: string;
  description: string | null;
  events: WebhookEventType[];
  groupIds: string[] | null;
  tuids: string[] | null;
  tsmIds: number[] | null;
  batchMaxEvents: number;
  batchMaxWaitMs: number;
  enabled: boolean;
  sealedSecret: string;
  sealedPreviousSecret: string | null;
  previousSecretUntil: number | null;
  health: WebhookHealth;
  createdAt: number;
  updatedAt: number;
  /** Set when this is a notification channel (SPEC section 13) that the dispatcher sends through its channel sender. */
  channel?: NotificationChannel;
}

export type DeliveryStatus = 'pending' | 'succeeded' | 'failed';

/** One event as it goes out: `{id, type, timestamp, data}` (timestamp RFC 3339 UTC), kept as its JSON text. */
export interface WebhookDelivery {
  id: string;
  organizationId: string;
  endpointId: string;
  eventTypes: string[];
  /** The JSON array of the events. */
  events: string;
  eventCount: number;
  status: DeliveryStatus;
  attemptCount: number;
  nextAttemptAt: number;
  createdAt: number;
  updatedAt: number;
}

export interface WebhookAttempt {
  deliveryId: string;
  endpointId: string;
  at: number;
  statusCode: number | null;
  durationMs: number;
  error: string | null;
  responseExcerpt: string | null;
}

export interface DeliveryWithAttempts extends WebhookDelivery {
  attempts: WebhookAttempt[];
}

/**
 * What the outbox writers need of an endpoint to decide, inside the transaction of the cause, whether an event goes
 * to it: plain values (they cross to the SQLite writer thread). Enabled endpoints only.
 */
export interface OutboxTarget {
  endpointId: string;
  organizationId: string;
  events: string[];
  groupIds: string[] | null;
  tuids: string[] | null;
  tsmIds: number[] | null;
  batchMaxEvents: number;
  batchMaxWaitMs: number;
}

/** A delivery row to insert with its cause. */
export interface OutboxRow {
  id: string;
  organizationId: string;
  endpointId: string;
  eventTypes: string;
  events: string;
  eventCount: number;
  nextAttemptAt: number;
  createdAt: number;
  /** Written leased until then: handed to this instance's dispatcher after the commit (OutboxHandOff). */
  leaseUntil?: number;
}

/** The outbox targets of an organization (the in-memory endpoint view), and the delay before a first attempt. */
export interface OutboxTargets {
  of(organizationId: string): readonly OutboxTarget[];
  firstDelayMs: number;
  /** This instance's dispatcher, when it takes new deliveries in memory (set by the composition root). */
  handOff?: OutboxHandOff;
}

/**
 * New deliveries handed to the dispatcher of the instance that wrote them, without a claim: the writer inserts the
 * rows of the endpoints whose lanes take them now already leased (`leaseMs` past their due time, so no other
 * instance claims them), and gives them to `take` after the commit. A row that is never taken (a crash) is claimed
 * from the store once its lease has run out, like any other.
 */
export interface OutboxHandOff {
  /** Whether the endpoint's lane takes new deliveries in memory now (healthy, with room). */
  accepts(endpointId: string): boolean;
  leaseMs: number;
  /** The leased rows of a committed transaction. */
  take(rows: readonly OutboxRow[]): void;
}

/** What crosses to a batch writer of the hand-off: the endpoints whose new rows are written leased, and for how long. */
export interface WireHandOff {
  endpointIds: string[];
  leaseMs: number;
}

/**
 * What webhooks need beyond the common deps, filled by the composition root: the sealing of secrets (the
 * token-signing keys' sealing key), the address rules' allow list, the rotation overlap, and the dispatcher's
 * sending of a test event now. Also where a caller's audit will hook in: every mutation below is one function
 * taking the principal.
 */
export interface WebhookServices {
  seal(secret: string): string;
  allow: AddressAllowList;
  secretOverlapS: number;
  /** Sends a delivery now, once, and logs the attempt (the test event). */
  sendNow(endpoint: WebhookEndpoint, delivery: WebhookDelivery): Promise<WebhookAttempt>;
  log?: (fields: Record<string, unknown>, message: string) => void;
}
