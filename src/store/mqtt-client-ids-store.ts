import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type MqttClientIdsStore = ReturnType<typeof mqttClientIdsStore>;

/** Which credential owns each MQTT client id (migration 0020). The rule of who may take one is the domain's. */
export function mqttClientIdsStore(db: Kysely<Schema>) {
  return {
    /** The owner of `clientId`, or undefined when no credential has used it. */
    async getOwner(clientId: string): Promise<string | undefined> {
      const row = await db.selectFrom('mqtt_client_ids').select('username').where('client_id', '=', clientId).executeTakeFirst();
      return row?.username;
    },
    /** Makes `username` the owner of an unused `clientId`; false when another got there first. */
    async create(clientId: string, username: string, claimedAt: number): Promise<boolean> {
      const result = await db
        .insertInto('mqtt_client_ids')
        .values({ client_id: clientId, username, claimed_at: claimedAt })
        .onConflict((oc) => oc.column('client_id').doNothing())
        .executeTakeFirst();
      return Number(result.numInsertedOrUpdatedRows ?? 0) > 0;
    },
    /** Moves `clientId` from `previous` to `username`; false when its owner is no longer `previous`. */
    async updateOwner(clientId: string, previous: string, username: string, claimedAt: number): Promise<boolean> {
      const result = await db
        .updateTable('mqtt_client_ids')
        .set({ username, claimed_at: claimedAt })
        .where('client_id', '=', clientId)
        .where('username', '=', previous)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    /** Frees every client id `username` owns (its credential was revoked). */
    async deleteOwnedBy(username: string): Promise<void> {
      await db.deleteFrom('mqtt_client_ids').where('username', '=', username).execute();
    },
  };
}
