import type { Kysely, Selectable } from 'kysely';
import type { AlertChannels, ChannelType, NotificationChannel } from '../domain/channels/channel-types.js';
import type { NotificationChannelsTable, Schema } from './schema.js';

export type ChannelsStore = ReturnType<typeof channelsStore>;

/** Notification channels and the built-in alerts' channels of each organization (migration 0031). */
export function channelsStore(db: Kysely<Schema>) {
  return {
    async create(channel: NotificationChannel): Promise<void> {
      await db.insertInto('notification_channels').values(channelRow(channel)).execute();
    },

    async get(organizationId: string, id: string): Promise<NotificationChannel | undefined> {
      const row = await db
        .selectFrom('notification_channels')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toChannel(row);
    },

    async list(organizationId: string): Promise<NotificationChannel[]> {
      const rows = await db
        .selectFrom('notification_channels')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('name')
        .orderBy('id')
        .execute();
      return rows.map(toChannel);
    },

    /** Every channel of the deployment (the in-memory channel view). */
    async listAll(): Promise<NotificationChannel[]> {
      return (await db.selectFrom('notification_channels').selectAll().execute()).map(toChannel);
    },

    /** Which of `ids` are the organization's channels. */
    async existing(organizationId: string, ids: readonly string[]): Promise<Set<string>> {
      if (ids.length === 0) return new Set();
      const rows = await db
        .selectFrom('notification_channels')
        .select('id')
        .where('organization_id', '=', organizationId)
        .where('id', 'in', [...ids])
        .execute();
      return new Set(rows.map((r) => r.id));
    },

    async update(channel: NotificationChannel): Promise<boolean> {
      const { id, organization_id, created_at, ...rest } = channelRow(channel);
      void created_at;
      const result = await db
        .updateTable('notification_channels')
        .set(rest)
        .where('organization_id', '=', organization_id)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },

    /** Its pending deliveries are dropped; the log of what was sent goes with them after WEBHOOK_LOG_RETENTION_DAYS. */
    async delete(organizationId: string, id: string): Promise<boolean> {
      const deleted = await db
        .deleteFrom('notification_channels')
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      if (Number(deleted.numDeletedRows) === 0) return false;
      await db.deleteFrom('webhook_deliveries').where('endpoint_id', '=', id).where('status', '=', 'pending').execute();
      await db.deleteFrom('notify_digests').where('channel_id', '=', id).execute();
      return true;
    },

    async alertChannels(organizationId: string): Promise<AlertChannels> {
      const row = await db
        .selectFrom('organization_alert_channels')
        .select('channels')
        .where('organization_id', '=', organizationId)
        .executeTakeFirst();
      return row ? (JSON.parse(row.channels) as AlertChannels) : {};
    },

    async allAlertChannels(): Promise<Map<string, AlertChannels>> {
      const rows = await db.selectFrom('organization_alert_channels').selectAll().execute();
      return new Map(rows.map((r) => [r.organization_id, JSON.parse(r.channels) as AlertChannels]));
    },

    async setAlertChannels(organizationId: string, channels: AlertChannels): Promise<void> {
      await db
        .insertInto('organization_alert_channels')
        .values({ organization_id: organizationId, channels: JSON.stringify(channels) })
        .onConflict((oc) => oc.column('organization_id').doUpdateSet({ channels: JSON.stringify(channels) }))
        .execute();
    },
  };
}

function channelRow(c: NotificationChannel): Selectable<NotificationChannelsTable> {
  return {
    id: c.id,
    organization_id: c.organizationId,
    name: c.name,
    type: c.type,
    recipients: c.to === null ? null : JSON.stringify(c.to),
    url: c.url,
    created_at: c.createdAt,
    updated_at: c.updatedAt,
  };
}

function toChannel(row: Selectable<NotificationChannelsTable>): NotificationChannel {
  return {
    id: row.id,
    organizationId: row.organization_id,
    name: row.name,
    type: row.type as ChannelType,
    to: row.recipients === null ? null : (JSON.parse(row.recipients) as string[]),
    url: row.url,
    createdAt: Number(row.created_at),
    updatedAt: Number(row.updated_at),
  };
}
