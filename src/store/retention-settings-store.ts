import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';
import type { SqliteDirectReads } from './sqlite-direct-reads.js';

export type RetentionSettingsStore = ReturnType<typeof retentionSettingsStore>;

/** An organization's own retention (null: the platform's default) and how far its messages were cleared. */
export interface RetentionSettingsRow {
  organizationId: string;
  messageRetentionDays: number | null;
  rollupRetentionDays: number | null;
  messagesClearedBefore: number | null;
}

export function retentionSettingsStore(db: Kysely<Schema>, directReads: SqliteDirectReads | undefined) {
  const columns = ['id', 'message_retention_days', 'rollup_retention_days', 'messages_cleared_before'] as const;
  const toRow = (row: {
    id: string;
    message_retention_days: number | null;
    rollup_retention_days: number | null;
    messages_cleared_before: number | null;
  }): RetentionSettingsRow => ({
    organizationId: row.id,
    messageRetentionDays: row.message_retention_days,
    rollupRetentionDays: row.rollup_retention_days,
    messagesClearedBefore: row.messages_cleared_before,
  });
  return {
    /** Read by every series request (its raw horizon), so on SQLite a direct prepared read when it can be. */
    async get(organizationId: string): Promise<RetentionSettingsRow | undefined> {
      const direct = directReads?.statement<Parameters<typeof toRow>[0]>(
        `select ${columns.join(', ')} from organizations where id = ?`,
        'rows',
      );
      const row = direct
        ? direct.get(organizationId)
        : await db.selectFrom('organizations').select(columns).where('id', '=', organizationId).executeTakeFirst();
      return row && toRow(row);
    },
    async list(): Promise<RetentionSettingsRow[]> {
      return (await db.selectFrom('organizations').select(columns).orderBy('id').execute()).map(toRow);
    },
    /** Sets the given overrides (null: back to the default; absent: unchanged); false when there is no such organization. */
    async set(
      organizationId: string,
      values: { messageRetentionDays?: number | null; rollupRetentionDays?: number | null },
    ): Promise<boolean> {
      const changes: { message_retention_days?: number | null; rollup_retention_days?: number | null } = {};
      if (values.messageRetentionDays !== undefined) changes.message_retention_days = values.messageRetentionDays;
      if (values.rollupRetentionDays !== undefined) changes.rollup_retention_days = values.rollupRetentionDays;
      if (Object.keys(changes).length === 0) return (await this.get(organizationId)) !== undefined;
      const result = await db.updateTable('organizations').set(changes).where('id', '=', organizationId).executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async setMessagesClearedBefore(organizationId: string, before: number): Promise<void> {
      await db.updateTable('organizations').set({ messages_cleared_before: before }).where('id', '=', organizationId).execute();
    },
  };
}
