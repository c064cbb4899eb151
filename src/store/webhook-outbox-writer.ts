import type { Kysely, Transaction } from 'kysely';
import { eventJson, newWebhookId, OutboxCollector } from '../domain/webhooks/outbox-rules.js';
import type { OutboxTargets } from '../domain/webhooks/webhook-types.js';
import type { Schema } from './schema.js';
import type { AlertChange } from '../domain/alerts/alert-types.js';
import { formatLocalDateTime } from '../domain/alerts/local-time.js';
import { deliveryRow } from './webhooks-store.js';
import { writeChannelOutbox } from './channel-outbox-writer.js';
import type { ChannelRouting } from '../domain/channels/channel-types.js';
import type { Clock } from '../domain/clock.js';

/**
 * Where the store modules find the webhook endpoints to match their events against (the in-memory endpoint view):
 * filled by the composition root once the view is loaded; empty (no outbox rows) before, and in the CLI.
 */
export interface WebhookOutboxHolder {
  targets?: OutboxTargets;
  /** ALERT_TIMEZONE: alert times in `alert.*` events are formatted as REST formats them. */
  alertTimeZone?: string;
  /** The notification channels' routing (SPEC section 13): alert changes also write their channels' deliveries. */
  channels?: ChannelRouting;
  /** PostgreSQL: noise-control states are locked while a transaction decides on them. */
  postgres?: boolean;
  /**
   * The platform's clock: noise control decides and dates its deliveries on it, as the dispatcher sends them on it
   * (a test's manual clock moves both). The system clock when absent.
   */
  clock?: Clock;
}

/** An event of a cause other than ingest (an alert change, a command answer, a thing change). */
export interface OutboxEvent {
  organizationId: string;
  type: string;
  tuid: string;
  /** The thing's group; undefined: read from the thing in this transaction. */
  groupId?: string | null;
  /** The event's `data`, as JSON text. */
  data: string;
}

/**
 * Writes the webhook deliveries of `events` in the caller's transaction (the outbox, SPEC section 11): the
 * endpoints that want them are decided from the view, and their rows inserted with the cause, so a crash loses none.
 * Costs nothing when no endpoint of the organizations wants these event types.
 */
export async function writeOutbox(
  trx: Transaction<Schema> | Kysely<Schema>,
  holder: WebhookOutboxHolder,
  events: readonly OutboxEvent[],
): Promise<void> {
  const targets = holder.targets;
  if (!targets || events.length === 0) return;
  const wanted = events.filter((e) => targets.of(e.organizationId).some((t) => t.events.includes(e.type)));
  if (wanted.length === 0) return;
  const unknownGroups = [...new Set(wanted.filter((e) => e.groupId === undefined).map((e) => e.tuid))];
  const groups = new Map<string, string | null>();
  if (unknownGroups.length > 0) {
    const rows = await trx.selectFrom('things').select(['tuid', 'group_id']).where('tuid', 'in', unknownGroups).execute();
    for (const row of rows) groups.set(row.tuid, row.group_id);
  }
  const now = Date.now();
  const collector = new OutboxCollector(now, targets.firstDelayMs);
  for (const e of wanted) {
    const groupId = e.groupId === undefined ? (groups.get(e.tuid) ?? null) : e.groupId;
    collector.add(
      targets.of(e.organizationId),
      { type: e.type, tuid: e.tuid, groupId, tsmId: null },
      eventJson(newWebhookId('evt'), e.type, now, e.data),
    );
  }
  const rows = collector.rows();
  if (rows.length > 0) await trx.insertInto('webhook_deliveries').values(rows.map(deliveryRow)).execute();
}

/**
 * Writes the deliveries of alert changes (the built-in engine's and the rules'): their notification channels'
 * (SPEC section 13), then the webhooks'. Only the changes some endpoint of their organization wants are formatted as
 * webhook events at all, since a flapping rule makes many and most organizations want none.
 */
export async function writeAlertOutbox(
  trx: Transaction<Schema> | Kysely<Schema>,
  holder: WebhookOutboxHolder,
  changes: readonly AlertChange[],
): Promise<void> {
  if (changes.length === 0) return;
  if (holder.channels) await writeChannelOutbox(trx, holder.channels, holder.postgres ?? false, changes, holder.clock?.now() ?? Date.now());
  const targets = holder.targets;
  if (!targets) return;
  const wanted = changes.filter((change) => {
    const type = change.closedAt !== null ? 'alert.closed' : 'alert.opened';
    return targets.of(change.organizationId).some((t) => t.events.includes(type));
  });
  await writeOutbox(
    trx,
    holder,
    wanted.map((change) => alertEvent(change, holder.alertTimeZone ?? 'UTC')),
  );
}

/** A `thing.changed` event: `{tuid, changes: {field: {from, to}}}`. */
export function thingChanged(
  organizationId: string,
  tuid: string,
  groupId: string | null | undefined,
  changes: Record<string, { from: unknown; to: unknown }>,
): OutboxEvent {
  return { organizationId, type: 'thing.changed', tuid, groupId, data: JSON.stringify({ tuid, changes }) };
}

/** An `alert.opened` or `alert.closed` event: `{tuid, alert_type, from, to}`, times as REST gives them (ALERT_TIMEZONE). */
export function alertEvent(change: AlertChange, timeZone: string): OutboxEvent {
  const closed = change.closedAt !== null;
  const data = {
    tuid: change.tuid,
    alert_type: change.alertType,
    from: formatLocalDateTime(change.openedAt, timeZone),
    to: closed ? formatLocalDateTime(change.closedAt!, timeZone) : null,
    ...(change.gatewayTuid !== null && { gateway_tuid: change.gatewayTuid }),
    ...(change.rule && { rule_id: change.rule.ruleId, severity: change.rule.severity, value: change.rule.value }),
  };
  return {
    organizationId: change.organizationId,
    type: closed ? 'alert.closed' : 'alert.opened',
    tuid: change.tuid,
    data: JSON.stringify(data),
  };
}
