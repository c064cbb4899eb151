/** The audit log as the studio reads it (SPEC 14): the query, an entry, and how its changes read. */

export interface AuditEntryRow {
  id: number;
  at: string;
  actor: { type: string; id: string | null; label: string | null };
  via: string;
  address: string | null;
  action: string;
  target: { type: string; id: string | null };
  changes: Record<string, { from: unknown; to: unknown }> | null;
  outcome: string;
}

export interface AuditLogPage {
  entries: AuditEntryRow[];
  nextCursor: string | null;
}

export const auditLogQuery = /* GraphQL */ `
  query StudioAuditLog(
    $from: String
    $to: String
    $actor: String
    $action: String
    $targetType: String
    $targetId: String
    $limit: Int
    $cursor: String
  ) {
    auditLog(
      from: $from
      to: $to
      actor: $actor
      action: $action
      targetType: $targetType
      targetId: $targetId
      limit: $limit
      cursor: $cursor
    ) {
      entries {
        id
        at
        actor {
          type
          id
          label
        }
        via
        address
        action
        target {
          type
          id
        }
        changes
        outcome
      }
      nextCursor
    }
  }
`;

/** The kinds of target an entry names (docs/audit.md), for the target filter. */
export const targetTypes = [
  'thing',
  'group',
  'user',
  'api_client',
  'mqtt_credential',
  'organization',
  'session',
  'signing_key',
  'operation',
] as const;

/** A change's value as text: null is a dash, strings as they are. */
export function changeValue(value: unknown): string {
  if (value === null || value === undefined) return '—';
  return typeof value === 'string' ? value : JSON.stringify(value);
}

/** `[field, from, to]` for each changed field, by field name. */
export function changeLines(changes: AuditEntryRow['changes']): [string, string, string][] {
  return Object.entries(changes ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([field, change]) => [field, changeValue(change.from), changeValue(change.to)]);
}
