/**
 * The alert rules page as data: the rule as GraphQL serves it, how a condition reads (`temp > 30`), which catalog
 * entries and numeric fields the form offers, and how the form's text becomes the mutation's input. The platform
 * checks every rule (its field errors are shown on the inputs), so no rule of the platform is repeated here.
 */

export interface AlertRule {
  id: string;
  name: string;
  tsmId: number;
  field: string;
  op: Op;
  threshold: number;
  clearThreshold: number | null;
  forS: number;
  scope: { groupIds: string[] | null; tuids: string[] | null };
  severity: 'critical' | 'warning' | 'info';
  enabled: boolean;
}

export const ruleFields = 'id name tsmId field op threshold clearThreshold forS scope { groupIds tuids } severity enabled';

export const ops = ['gt', 'gte', 'lt', 'lte', 'eq', 'ne'] as const;
export type Op = (typeof ops)[number];
export const opSymbols: Record<Op, string> = { gt: '>', gte: '≥', lt: '<', lte: '≤', eq: '=', ne: '≠' };
export const severities = ['critical', 'warning', 'info'] as const;

/** `env.temp > 30`, as the rule list and messages write a condition. */
export function conditionText(rule: Pick<AlertRule, 'field' | 'op' | 'threshold'>): string {
  return `${rule.field} ${opSymbols[rule.op]} ${rule.threshold}`;
}

/** The scope in words: "every thing", "groups freezers, cold-room", "2 things" ... */
export function scopeText(scope: AlertRule['scope']): string {
  const parts: string[] = [];
  if (scope.groupIds) parts.push(`${scope.groupIds.length === 1 ? 'group' : 'groups'} ${scope.groupIds.join(', ')}`);
  if (scope.tuids) parts.push(scope.tuids.length <= 3 ? scope.tuids.join(', ') : `${scope.tuids.length} things`);
  return parts.length === 0 ? 'every thing' : parts.join('; ');
}

/** A catalog field as the `catalog` query serves it, as far as the form reads it (src/catalog/types.ts). */
interface CatalogFieldShape {
  name: string;
  type: string;
  unit?: string;
  description?: string;
  fields?: CatalogFieldShape[];
}
export interface CatalogMessage {
  tsmId: number;
  name: string;
  direction: 'uplink' | 'downlink' | 'both';
  fields: CatalogFieldShape[];
  variants?: { direction: 'uplink' | 'downlink'; fields: CatalogFieldShape[] }[];
}

/** A numeric field the form offers: its dotted path and a label with its unit. */
export interface NumericField {
  path: string;
  label: string;
}

/** The catalog's messages a device sends (uplink, or both directions), by id: the ones a rule can read. */
export function uplinkMessages(catalog: readonly CatalogMessage[]): CatalogMessage[] {
  return catalog.filter((entry) => entry.direction !== 'downlink').sort((a, b) => a.tsmId - b.tsmId);
}

/** The numeric fields of a message, nested objects as dotted paths (`env.temp`); of a message with variants, its uplink ones. */
export function numericFields(entry: CatalogMessage | undefined): NumericField[] {
  if (!entry) return [];
  const roots = entry.variants ? entry.variants.filter((v) => v.direction === 'uplink').flatMap((v) => v.fields) : entry.fields;
  const found = new Map<string, NumericField>();
  const walk = (fields: readonly CatalogFieldShape[], prefix: string) => {
    for (const field of fields) {
      const path = `${prefix}${field.name}`;
      if (field.type === 'Number' && !found.has(path)) {
        const about = [field.description, field.unit].filter(Boolean).join(', ');
        found.set(path, { path, label: about ? `${path} (${about})` : path });
      } else if (field.type === 'Object' && field.fields) walk(field.fields, `${path}.`);
    }
  };
  walk(roots, '');
  return [...found.values()];
}

/** What the form edits: text as typed, turned into the mutation's input by `toInput`. */
export interface RuleDraft {
  name: string;
  tsmId: string;
  field: string;
  op: Op;
  threshold: string;
  clearThreshold: string;
  forS: string;
  groupIds: string[];
  tuids: string;
  severity: AlertRule['severity'];
  enabled: boolean;
}

export function emptyDraft(): RuleDraft {
  return {
    name: '',
    tsmId: '',
    field: '',
    op: 'gt',
    threshold: '',
    clearThreshold: '',
    forS: '0',
    groupIds: [],
    tuids: '',
    severity: 'warning',
    enabled: true,
  };
}

export function draftOf(rule: AlertRule): RuleDraft {
  return {
    name: rule.name,
    tsmId: String(rule.tsmId),
    field: rule.field,
    op: rule.op,
    threshold: String(rule.threshold),
    clearThreshold: rule.clearThreshold === null ? '' : String(rule.clearThreshold),
    forS: String(rule.forS),
    groupIds: rule.scope.groupIds ?? [],
    tuids: (rule.scope.tuids ?? []).join(', '),
    severity: rule.severity,
    enabled: rule.enabled,
  };
}

/** The TUIDs typed, split on commas, spaces or lines. */
export function tuidList(text: string): string[] {
  return text
    .split(/[\s,]+/)
    .map((tuid) => tuid.trim())
    .filter(Boolean);
}

/** The scope input: null lists for "any". */
export function scopeInput(draft: Pick<RuleDraft, 'groupIds' | 'tuids'>): { groupIds: string[] | null; tuids: string[] | null } {
  const tuids = tuidList(draft.tuids);
  return { groupIds: draft.groupIds.length > 0 ? draft.groupIds : null, tuids: tuids.length > 0 ? tuids : null };
}

/**
 * The mutation's input, or the fields whose text is not a number (reading the text is the form's job; what the
 * number may be is the platform's, whose field errors the form shows). An empty number is null: the platform
 * names a required one, and an empty clear threshold means "the threshold".
 */
export function toInput(draft: RuleDraft): { input: Record<string, unknown>; unreadable: { field: string; message: string }[] } {
  const unreadable: { field: string; message: string }[] = [];
  const numberOf = (field: string, text: string): number | null => {
    const trimmed = text.trim();
    if (trimmed === '') return null;
    const value = Number(trimmed);
    if (Number.isFinite(value)) return value;
    unreadable.push({ field, message: 'must be a number' });
    return null;
  };
  const input = {
    name: draft.name,
    tsmId: numberOf('tsmId', draft.tsmId),
    field: draft.field.trim(),
    op: draft.op,
    threshold: numberOf('threshold', draft.threshold),
    clearThreshold: numberOf('clearThreshold', draft.clearThreshold),
    forS: numberOf('forS', draft.forS) ?? 0,
    scope: scopeInput(draft),
    severity: draft.severity,
    enabled: draft.enabled,
  };
  return { input, unreadable };
}
