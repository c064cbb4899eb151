import type { Kysely, Selectable } from 'kysely';
import type { AlertSeverity } from '../domain/alerts/alert-types.js';
import type { AlertRule, RuleOp, RulePatch } from '../domain/rules/rule-types.js';
import type { AlertRulesTable, Schema } from './schema.js';
import { insertUnique } from './store-errors.js';

export type AlertRulesStore = ReturnType<typeof alertRulesStore>;

/**
 * Alert rules (migration 0027). The name is unique per organization (DuplicateKeyError on create and rename); a
 * rename also renames the rule's periods, so its history stays under one name (the periods are found by `rule_id`).
 */
export function alertRulesStore(db: Kysely<Schema>) {
  return {
    /** DuplicateKeyError when the organization has a rule of this name. */
    async create(rule: AlertRule): Promise<void> {
      await insertUnique('alert rule', () => db.insertInto('alert_rules').values(ruleRow(rule)).execute());
    },

    async get(organizationId: string, id: string): Promise<AlertRule | undefined> {
      const row = await db
        .selectFrom('alert_rules')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toRule(row);
    },

    async list(organizationId: string): Promise<AlertRule[]> {
      const rows = await db
        .selectFrom('alert_rules')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows.map(toRule);
    },

    /** Every enabled rule of the deployment (the in-memory rule index; a few thousand rows at most). */
    async listAllEnabled(): Promise<AlertRule[]> {
      return (await db.selectFrom('alert_rules').selectAll().where('enabled', '=', 1).execute()).map(toRule);
    },

    /** Every rule of the deployment, enabled or not (the channel view: a disabled rule's closings notify too). */
    async listAll(): Promise<AlertRule[]> {
      return (await db.selectFrom('alert_rules').selectAll().execute()).map(toRule);
    },

    /** DuplicateKeyError when the new name is taken; undefined when there is no such rule. */
    async update(organizationId: string, id: string, patch: RulePatch, now: number): Promise<AlertRule | undefined> {
      const result = await insertUnique('alert rule', () =>
        db
          .updateTable('alert_rules')
          .set({ ...patchRow(patch), updated_at: now })
          .where('organization_id', '=', organizationId)
          .where('id', '=', id)
          .executeTakeFirst(),
      );
      if (Number(result.numUpdatedRows) === 0) return undefined;
      if (patch.name !== undefined)
        await db
          .updateTable('alerts')
          .set({ alert_type: patch.name })
          .where('organization_id', '=', organizationId)
          .where('rule_id', '=', id)
          .execute();
      return this.get(organizationId, id);
    },

    /** false when there is no such rule. Its periods stay in the things' alert history. */
    async delete(organizationId: string, id: string): Promise<boolean> {
      const deleted = await db
        .deleteFrom('alert_rules')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await db.deleteFrom('alert_rule_states').where('rule_id', '=', id).execute();
      // Its noise-control states go too (the closings of its periods were decided before, in this change).
      await db.deleteFrom('notify_states').where('rule_key', '=', id).execute();
      await db.deleteFrom('notify_digests').where('rule_key', '=', id).execute();
      return true;
    },
  };
}

const json = (list: readonly unknown[] | null) => (list === null ? null : JSON.stringify(list));

function ruleRow(rule: AlertRule): AlertRulesTable {
  return {
    id: rule.id,
    organization_id: rule.organizationId,
    name: rule.name,
    tsm_id: rule.tsmId,
    field: rule.field,
    op: rule.op,
    threshold: rule.threshold,
    clear_threshold: rule.clearThreshold,
    for_s: rule.forS,
    group_ids: json(rule.scope.groupIds),
    tuids: json(rule.scope.tuids),
    severity: rule.severity,
    enabled: rule.enabled ? 1 : 0,
    channels: JSON.stringify(rule.channels),
    created_at: rule.createdAt,
    updated_at: rule.updatedAt,
  };
}

function patchRow(p: RulePatch): Partial<AlertRulesTable> {
  const row: Partial<AlertRulesTable> = {};
  if (p.name !== undefined) row.name = p.name;
  if (p.tsmId !== undefined) row.tsm_id = p.tsmId;
  if (p.field !== undefined) row.field = p.field;
  if (p.op !== undefined) row.op = p.op;
  if (p.threshold !== undefined) row.threshold = p.threshold;
  if (p.clearThreshold !== undefined) row.clear_threshold = p.clearThreshold;
  if (p.forS !== undefined) row.for_s = p.forS;
  if (p.scope !== undefined) {
    row.group_ids = json(p.scope.groupIds);
    row.tuids = json(p.scope.tuids);
  }
  if (p.severity !== undefined) row.severity = p.severity;
  if (p.enabled !== undefined) row.enabled = p.enabled ? 1 : 0;
  if (p.channels !== undefined) row.channels = JSON.stringify(p.channels);
  return row;
}

const parsed = <T>(text: string | null): T[] | null => (text === null ? null : (JSON.parse(text) as T[]));

function toRule(row: Selectable<AlertRulesTable>): AlertRule {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    tsmId: Number(row.tsm_id),
    field: row.field,
    op: row.op as RuleOp,
    threshold: Number(row.threshold),
    clearThreshold: row.clear_threshold === null ? null : Number(row.clear_threshold),
    forS: Number(row.for_s),
    scope: { groupIds: parsed<string>(row.group_ids), tuids: parsed<string>(row.tuids) },
    severity: row.severity as AlertSeverity,
    enabled: Number(row.enabled) === 1,
    channels: parsed<string>(row.channels) ?? [],
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
