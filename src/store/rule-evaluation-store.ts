import { sql, type Kysely, type RawBuilder, type Transaction } from 'kysely';
import type { AlertChange, AlertSeverity } from '../domain/alerts/alert-types.js';
import type { Dialect } from './database.js';
import { portableSql } from './portable-sql.js';
import type { Schema } from './schema.js';
import { writeAlertOutbox, type WebhookOutboxHolder } from './webhook-outbox-writer.js';

/** A rule period to open on a thing; with `heldSince`, only if the store's pending state began at or before it (`for_s`). */
export interface RuleOpening {
  ruleId: string;
  organizationId: string;
  tuid: string;
  name: string;
  severity: AlertSeverity;
  at: number;
  value: number;
  heldSince?: number;
}

/** A (rule, thing) whose condition began to hold at `at` (arrival), with the value then. */
export interface RulePending {
  ruleId: string;
  organizationId: string;
  tuid: string;
  at: number;
  value: number;
}

export interface RuleKey {
  ruleId: string;
  tuid: string;
}

interface ChangeRow {
  organization_id: string;
  tuid: string;
  alert_type: string;
  opened_at: number;
  closed_at: number | null;
  rule_id: string;
  severity: string;
  value: number | null;
}

export type RuleEvaluationStore = ReturnType<typeof ruleEvaluationStore>;

/** The transition writes of one transaction (`RuleEvaluationStore.transitions`). */
export interface RuleTransitions {
  /** Opens the periods (each at most once per rule and thing) and ends the pending states of those it opened. */
  open(openings: readonly RuleOpening[]): Promise<AlertChange[]>;
  /** Closes the open periods of these (rule, thing) at `at` (never before they began). */
  close(closings: readonly (RuleKey & { at: number })[]): Promise<AlertChange[]>;
  /** Records pending states (an existing one keeps its start); answers the start the store holds for each. */
  startPending(pending: readonly RulePending[]): Promise<Map<string, number>>;
  /** Ends pending states: the condition broke before `for_s` had passed. */
  cancelPending(keys: readonly RuleKey[]): Promise<void>;
}

/**
 * The writes of rule alerts (SPEC section 13), called by the alert engine only when its memory says a message
 * changes something (a transition), never per message. Opens are `insert ... where not exists (an active one) on
 * conflict do nothing`, so the partial unique index `alerts_one_active` settles two instances racing: one period,
 * not two. A `for_s` opening is made from the stored pending state (`alert_rule_states`), so a condition another
 * instance saw break opens nothing. The changes of one batch are written with their webhook deliveries in one
 * transaction: on SQLite a transaction on the main connection may wait for the ingest writer's lock, and a flapping
 * rule that paid that wait per transition cut everyone's ingest twentyfold.
 */
export function ruleEvaluationStore(db: Kysely<Schema>, dialect: Dialect, outbox: WebhookOutboxHolder = {}) {
  const { greatest, ms } = portableSql(dialect);
  const returning = sql`returning organization_id, tuid, alert_type, opened_at, closed_at, rule_id, severity, value`;
  /** Runs `work` in one transaction whose changes (what `work` answers) get their outbox rows in it too. */
  const inTransaction = (work: (trx: Transaction<Schema>) => Promise<AlertChange[]>): Promise<AlertChange[]> =>
    db.transaction().execute(async (trx) => {
      const changes = await work(trx);
      await writeAlertOutbox(trx, outbox, changes);
      return changes;
    });
  const changed = async (trx: Transaction<Schema>, queries: readonly RawBuilder<ChangeRow>[]) => {
    const changes: AlertChange[] = [];
    for (const query of queries) changes.push(...(await query.execute(trx)).rows.map(toChange));
    return changes;
  };
  const openQuery = (o: RuleOpening) => {
    const held =
      o.heldSince === undefined
        ? sql``
        : sql`and exists (select 1 from alert_rule_states s where s.rule_id = ${o.ruleId} and s.tuid = t.tuid and s.pending_since <= ${ms(o.heldSince)})`;
    const previousEnd = sql`coalesce((select max(p.closed_at) from alerts p where p.tuid = t.tuid and p.rule_id = ${o.ruleId}), 0)`;
    return sql<ChangeRow>`
      insert into alerts (organization_id, tuid, alert_type, opened_at, severity, rule_id, value, group_id, gateway_tuid)
      select t.organization_id, t.tuid, ${o.name}, ${greatest(ms(o.at), previousEnd)}, ${o.severity}, ${o.ruleId}, ${o.value},
        t.group_id, t.last_heard_gateway_tuid
      from things t
      where t.tuid = ${o.tuid} and t.organization_id = ${o.organizationId} ${held}
        and not exists (select 1 from alerts a where a.tuid = t.tuid and a.rule_id = ${o.ruleId} and a.closed_at is null)
      on conflict do nothing ${returning}`;
  };
  const deleteStates = async (trx: Kysely<Schema>, keys: readonly RuleKey[]) => {
    for (const k of keys) await trx.deleteFrom('alert_rule_states').where('rule_id', '=', k.ruleId).where('tuid', '=', k.tuid).execute();
  };
  const transitionsOn = (trx: Transaction<Schema>, changes: AlertChange[]): RuleTransitions => ({
    async open(openings) {
      const opened = await changed(trx, openings.map(openQuery));
      await deleteStates(
        trx,
        opened.map((c) => ({ ruleId: c.rule!.ruleId, tuid: c.tuid })),
      );
      changes.push(...opened);
      return opened;
    },
    async close(closings) {
      const closed = await changed(
        trx,
        closings.map(
          (c) => sql<ChangeRow>`
            update alerts set closed_at = ${greatest(ms(c.at), sql`opened_at`)}
            where rule_id = ${c.ruleId} and tuid = ${c.tuid} and closed_at is null ${returning}`,
        ),
      );
      changes.push(...closed);
      return closed;
    },
    async startPending(pending) {
      const held = new Map<string, number>();
      for (const p of pending) {
        await trx
          .insertInto('alert_rule_states')
          .values({ rule_id: p.ruleId, tuid: p.tuid, organization_id: p.organizationId, pending_since: p.at, value: p.value })
          .onConflict((oc) => oc.columns(['rule_id', 'tuid']).doNothing())
          .execute();
        const row = await trx
          .selectFrom('alert_rule_states')
          .select('pending_since')
          .where('rule_id', '=', p.ruleId)
          .where('tuid', '=', p.tuid)
          .executeTakeFirst();
        if (row) held.set(ruleKey(p), Number(row.pending_since));
      }
      return held;
    },
    cancelPending: (keys) => deleteStates(trx, keys),
  });

  return {
    /**
     * Runs `work`'s transition writes in one transaction; answers every period it opened or closed, whose webhook
     * deliveries are written in that transaction too.
     */
    transitions(work: (writes: RuleTransitions) => Promise<void>): Promise<AlertChange[]> {
      return inTransaction(async (trx) => {
        const changes: AlertChange[] = [];
        await work(transitionsOn(trx, changes));
        return changes;
      });
    },

    /** The engine's periodic run: the pending states of enabled rules whose `for_s` has passed by `now`. */
    async listDue(now: number): Promise<(RuleKey & { pendingSince: number; value: number })[]> {
      const rows = await db
        .selectFrom('alert_rule_states as s')
        .innerJoin('alert_rules as r', 'r.id', 's.rule_id')
        .select(['s.rule_id', 's.tuid', 's.pending_since', 's.value'])
        .where('r.enabled', '=', 1)
        .where(sql<boolean>`s.pending_since + r.for_s * 1000 <= ${ms(now)}`)
        .execute();
      return rows.map((r) => ({ ruleId: r.rule_id, tuid: r.tuid, pendingSince: Number(r.pending_since), value: Number(r.value) }));
    },

    /** Closes every open period of one rule at `at` (disabled or deleted) and ends its pending states. */
    closeRule(organizationId: string, ruleId: string, at: number): Promise<AlertChange[]> {
      return inTransaction(async (trx) => {
        const closed = await changed(trx, [
          sql<ChangeRow>`update alerts set closed_at = ${greatest(ms(at), sql`opened_at`)}
            where organization_id = ${organizationId} and rule_id = ${ruleId} and closed_at is null ${returning}`,
        ]);
        await trx.deleteFrom('alert_rule_states').where('rule_id', '=', ruleId).execute();
        return closed;
      });
    },

    /** The safety net of the periodic run: open periods whose rule is gone or disabled close at `at`. */
    closeOrphans(at: number): Promise<AlertChange[]> {
      return inTransaction((trx) =>
        changed(trx, [
          sql<ChangeRow>`update alerts set closed_at = ${greatest(ms(at), sql`opened_at`)}
          where rule_id is not null and closed_at is null
            and not exists (select 1 from alert_rules r where r.id = alerts.rule_id and r.enabled = 1) ${returning}`,
        ]),
      );
    },

    /** Every open rule period and pending state (the engine's memory, refreshed at each periodic run). */
    async listState(): Promise<{ open: RuleKey[]; pending: (RuleKey & { pendingSince: number })[] }> {
      const open = await db
        .selectFrom('alerts')
        .select(['rule_id', 'tuid'])
        .where('closed_at', 'is', null)
        .where('rule_id', 'is not', null)
        .execute();
      const pending = await db.selectFrom('alert_rule_states').select(['rule_id', 'tuid', 'pending_since']).execute();
      return {
        open: open.map((r) => ({ ruleId: r.rule_id!, tuid: r.tuid })),
        pending: pending.map((r) => ({ ruleId: r.rule_id, tuid: r.tuid, pendingSince: Number(r.pending_since) })),
      };
    },
  };
}

export function ruleKey(k: RuleKey): string {
  return `${k.ruleId}\n${k.tuid}`;
}

function toChange(row: ChangeRow): AlertChange {
  return {
    organizationId: row.organization_id,
    tuid: row.tuid,
    alertType: row.alert_type,
    gatewayTuid: null,
    openedAt: Number(row.opened_at),
    closedAt: row.closed_at === null ? null : Number(row.closed_at),
    rule: { ruleId: row.rule_id, severity: row.severity as AlertSeverity, value: row.value === null ? null : Number(row.value) },
  };
}
