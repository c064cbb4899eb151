import type { Kysely } from 'kysely';

/**
 * `mqtt_credentials.sealed_password`: with MQTT_AUTH=mosquitto-dynsec, the password sealed under
 * MQTT_AUTH_SEALING_KEY (domain/identity/secrets.ts), besides its argon2id hash, because Mosquitto's dynamic
 * security takes passwords only in plain text and the platform must be able to provision them again (a broker
 * whose state was lost). Null for credentials made without it.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mqtt_credentials').addColumn('sealed_password', 'text').execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('mqtt_credentials').dropColumn('sealed_password').execute();
}
