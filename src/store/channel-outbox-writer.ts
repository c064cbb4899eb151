import type { Kysely, Transaction } from 'kysely';
import { builtInSeverity, type AlertChange, type AlertType } from '../domain/alerts/alert-types.js';
import { alertMessage, conditionOf, digestMessage, stateOf } from '../domain/channels/channel-messages.js';
import type { ChannelMessage, ChannelRoute, ChannelRouting } from '../domain/channels/channel-types.js';
import { decideDigest, decideInterval, type DigestState, type IntervalState, type NotifiedState } from '../domain/channels/notify-rules.js';
import { newWebhookId } from '../domain/webhooks/outbox-rules.js';
import type { Schema } from './schema.js';
import { deliveryRow } from './webhooks-store.js';

type Db = Transaction<Schema> | Kysely<Schema>;

interface Routed {
  change: AlertChange;
  route: ChannelRoute;
}

/**
 * Writes the notification deliveries of alert changes (SPEC section 13) in the change's transaction, as outbox rows
 * of the channels (`webhook_deliveries`, endpoint id the channel's), after noise control: per (rule, thing) at most
 * one per NOTIFY_MIN_INTERVAL_S (later changes wait for the interval's end, carrying the latest state), per
 * (channel, rule) at most NOTIFY_DIGEST_THRESHOLD messages in any NOTIFY_DIGEST_WINDOW_S (the rest of the openings in
 * one digest; notify-rules.ts decides). Which channels
 * a change notifies comes from the in-memory channel view; the states are read once per call for all its changes
 * (locked on PostgreSQL, so two instances do not both send) and written back before the commit.
 */
export async function writeChannelOutbox(
  trx: Db,
  routing: ChannelRouting,
  postgres: boolean,
  changes: readonly AlertChange[],
  now = Date.now(),
): Promise<void> {
  const routed: Routed[] = [];
  for (const change of changes) {
    const route = routing.routeOf(change.organizationId, change.alertType, change.rule?.ruleId);
    if (route) routed.push({ change, route });
  }
  if (routed.length === 0) return;
  const ruleKeys = [...new Set(routed.map((r) => r.route.ruleKey))];
  const tuids = [...new Set(routed.map((r) => r.change.tuid))];
  const channelIds = [...new Set(routed.flatMap((r) => r.route.channelIds))];

  let stateQuery = trx.selectFrom('notify_states').selectAll().where('rule_key', 'in', ruleKeys).where('tuid', 'in', tuids);
  if (postgres) stateQuery = stateQuery.forUpdate();
  let digestQuery = trx.selectFrom('notify_digests').selectAll().where('channel_id', 'in', channelIds).where('rule_key', 'in', ruleKeys);
  if (postgres) digestQuery = digestQuery.forUpdate();
  const [stateRows, digestRows, things] = await Promise.all([
    stateQuery.execute(),
    digestQuery.execute(),
    trx.selectFrom('things').select(['tuid', 'group_id', 'name', 'labels']).where('tuid', 'in', tuids).execute(),
  ]);
  const states = new Map<string, IntervalState>();
  for (const row of stateRows)
    states.set(`${row.rule_key}|${row.tuid}`, {
      lastState: row.last_state as NotifiedState,
      lastAt: Number(row.last_at),
      deferredIds: row.deferred_ids === null ? null : (JSON.parse(row.deferred_ids) as string[]),
      deferredBase: row.deferred_base as NotifiedState | null,
    });
  const digests = new Map<string, DigestState>();
  for (const row of digestRows)
    digests.set(`${row.channel_id}|${row.rule_key}`, {
      recentSends: JSON.parse(row.recent_sends) as [number, number][],
      digestId: row.digest_id,
      digestDueAt: row.digest_due_at === null ? null : Number(row.digest_due_at),
    });
  const thingFacts = new Map(
    things.map((t) => [t.tuid, { groupId: t.group_id, name: t.name, labels: JSON.parse(t.labels || '{}') as Record<string, string> }]),
  );
  // Digest deliveries of earlier windows whose content this call adds to: read once, written once.
  const digestContents = new Map<string, ChannelMessage>();
  const wantedDigests = [...digests.values()].map((d) => d.digestId).filter((id): id is string => id !== null);
  if (wantedDigests.length > 0) {
    const rows = await trx.selectFrom('webhook_deliveries').select(['id', 'events', 'status']).where('id', 'in', wantedDigests).execute();
    for (const row of rows) if (row.status === 'pending') digestContents.set(row.id, (JSON.parse(row.events) as ChannelMessage[])[0]!);
  }

  const inserts = new Map<string, { organizationId: string; channelId: string; type: string; message: ChannelMessage; dueAt: number }>();
  const rewrites = new Map<string, ChannelMessage>();
  const drops: string[] = [];
  // The (rule key, TUID) and (channel, rule key) of each state key this call changed.
  const touchedStates = new Map<string, [string, string]>();
  const touchedDigests = new Map<string, [string, string]>();

  for (const { change, route } of routed) {
    const state = stateOf(change);
    const type = state === 'open' ? 'alert.opened' : 'alert.closed';
    const message = alertMessage(
      change,
      route.rule,
      thingFacts.get(change.tuid) ?? { groupId: null, name: null, labels: null },
      routing.messages,
    );
    const key = `${route.ruleKey}|${change.tuid}`;
    const decision = decideInterval(states.get(key), state, now, routing.noise.minIntervalMs);
    touchedStates.set(key, [route.ruleKey, change.tuid]);
    if (decision.action === 'none') {
      if (decision.next) states.set(key, decision.next);
      continue;
    }
    if (decision.action === 'drop') {
      drops.push(...decision.ids);
      for (const id of decision.ids) inserts.delete(id);
      states.set(key, decision.next);
      continue;
    }
    if (decision.action === 'rewrite') {
      for (const id of decision.next.deferredIds ?? []) {
        const pending = inserts.get(id);
        if (pending) pending.message = message;
        else rewrites.set(id, message);
      }
      states.set(key, decision.next);
      continue;
    }
    if (decision.action === 'defer') {
      const ids = route.channelIds.map((channelId) => {
        const id = newWebhookId('whd');
        inserts.set(id, { organizationId: change.organizationId, channelId, type, message, dueAt: decision.dueAt });
        return id;
      });
      states.set(key, { ...decision.next, deferredIds: ids });
      continue;
    }
    states.set(key, decision.next);
    for (const channelId of route.channelIds) {
      if (state === 'closed') {
        inserts.set(newWebhookId('whd'), { organizationId: change.organizationId, channelId, type, message, dueAt: now });
        continue;
      }
      const digestKey = `${channelId}|${route.ruleKey}`;
      const digest = decideDigest(digests.get(digestKey), now, routing.noise.digestThreshold, routing.noise.digestWindowMs);
      touchedDigests.set(digestKey, [channelId, route.ruleKey]);
      if (digest.action === 'single') {
        digests.set(digestKey, digest.next);
        inserts.set(newWebhookId('whd'), { organizationId: change.organizationId, channelId, type, message, dueAt: now });
        continue;
      }
      const entry = { tuid: change.tuid, value: change.rule?.value ?? null, at: now };
      const existingId = digest.next.digestId;
      const existing =
        existingId === null ? undefined : (inserts.get(existingId)?.message ?? rewrites.get(existingId) ?? digestContents.get(existingId));
      const severity = change.rule?.severity ?? builtInSeverity[change.alertType as AlertType] ?? 'warning';
      const what = route.rule ? conditionOf(route.rule) : change.alertType;
      const entries = [...(existing?.digest?.entries ?? []), entry];
      const rendered = digestMessage(existing?.digest?.what ?? what, existing?.digest?.severity ?? severity, entries, routing.messages);
      if (existingId !== null && existing) {
        const pending = inserts.get(existingId);
        if (pending) pending.message = rendered;
        else rewrites.set(existingId, rendered);
        continue;
      }
      const id = newWebhookId('whd');
      inserts.set(id, { organizationId: change.organizationId, channelId, type: 'alert.digest', message: rendered, dueAt: digest.dueAt });
      digests.set(digestKey, { ...digest.next, digestId: id });
    }
  }

  if (drops.length > 0) await trx.deleteFrom('webhook_deliveries').where('id', 'in', drops).where('status', '=', 'pending').execute();
  for (const [id, message] of rewrites)
    await trx
      .updateTable('webhook_deliveries')
      .set({ events: JSON.stringify([message]), updated_at: now })
      .where('id', '=', id)
      .where('status', '=', 'pending')
      .execute();
  if (inserts.size > 0)
    await trx
      .insertInto('webhook_deliveries')
      .values(
        [...inserts].map(([id, d]) =>
          deliveryRow({
            id,
            organizationId: d.organizationId,
            endpointId: d.channelId,
            eventTypes: JSON.stringify([d.type]),
            events: JSON.stringify([d.message]),
            eventCount: 1,
            nextAttemptAt: d.dueAt,
            createdAt: now,
          }),
        ),
      )
      .execute();
  const stateValues = [...touchedStates].flatMap(([key, [ruleKey, tuid]]) => {
    const state = states.get(key);
    if (!state) return [];
    return [
      {
        rule_key: ruleKey,
        tuid,
        last_state: state.lastState,
        last_at: state.lastAt,
        deferred_ids: state.deferredIds && state.deferredIds.length > 0 ? JSON.stringify(state.deferredIds) : null,
        deferred_base: state.deferredBase,
      },
    ];
  });
  if (stateValues.length > 0)
    await trx
      .insertInto('notify_states')
      .values(stateValues)
      .onConflict((oc) =>
        oc.columns(['rule_key', 'tuid']).doUpdateSet((eb) => ({
          last_state: eb.ref('excluded.last_state'),
          last_at: eb.ref('excluded.last_at'),
          deferred_ids: eb.ref('excluded.deferred_ids'),
          deferred_base: eb.ref('excluded.deferred_base'),
        })),
      )
      .execute();
  const digestValues = [...touchedDigests].map(([key, [channelId, ruleKey]]) => {
    const digest = digests.get(key)!;
    return {
      channel_id: channelId,
      rule_key: ruleKey,
      recent_sends: JSON.stringify(digest.recentSends),
      digest_id: digest.digestId,
      digest_due_at: digest.digestDueAt,
    };
  });
  if (digestValues.length > 0)
    await trx
      .insertInto('notify_digests')
      .values(digestValues)
      .onConflict((oc) =>
        oc.columns(['channel_id', 'rule_key']).doUpdateSet((eb) => ({
          recent_sends: eb.ref('excluded.recent_sends'),
          digest_id: eb.ref('excluded.digest_id'),
          digest_due_at: eb.ref('excluded.digest_due_at'),
        })),
      )
      .execute();
}
