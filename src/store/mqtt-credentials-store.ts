import type { Kysely, Selectable } from 'kysely';
import type { MqttCredential, MqttCredentialKind } from '../domain/identity/types.js';
import type { MqttCredentialsTable, Schema } from './schema.js';
import { insertUnique } from './store-errors.js';

export type MqttCredentialsStore = ReturnType<typeof mqttCredentialsStore>;

export interface MqttCredentialWithPasswordHash extends MqttCredential {
  passwordHash: string;
}

export function mqttCredentialsStore(db: Kysely<Schema>) {
  return {
    async create(credential: MqttCredential, passwordHash: string, sealedPassword?: string): Promise<MqttCredential> {
      await insertUnique('MQTT credential', () =>
        db
          .insertInto('mqtt_credentials')
          .values({
            username: credential.username,
            organization_id: credential.organizationId,
            kind: credential.kind,
            password_hash: passwordHash,
            created_at: credential.createdAt,
            revoked_at: credential.revokedAt,
            sealed_password: sealedPassword ?? null,
          })
          .execute(),
      );
      return credential;
    },
    /** Creates every credential or none, in one transaction; DuplicateKeyError when a username is taken. */
    async createMany(credentials: readonly { credential: MqttCredential; passwordHash: string; sealedPassword?: string }[]): Promise<void> {
      await insertUnique('MQTT credential', () =>
        db.transaction().execute(async (trx) => {
          for (let i = 0; i < credentials.length; i += 200) {
            await trx
              .insertInto('mqtt_credentials')
              .values(
                credentials.slice(i, i + 200).map(({ credential, passwordHash, sealedPassword }) => ({
                  username: credential.username,
                  organization_id: credential.organizationId,
                  kind: credential.kind,
                  password_hash: passwordHash,
                  created_at: credential.createdAt,
                  revoked_at: credential.revokedAt,
                  sealed_password: sealedPassword ?? null,
                })),
              )
              .execute();
          }
        }),
      );
    },
    /** Which of these usernames are taken (in any organization, revoked or not). */
    async takenUsernames(usernames: readonly string[]): Promise<Set<string>> {
      const taken = new Set<string>();
      for (let i = 0; i < usernames.length; i += 500) {
        const rows = await db
          .selectFrom('mqtt_credentials')
          .select('username')
          .where('username', 'in', usernames.slice(i, i + 500))
          .execute();
        for (const row of rows) taken.add(row.username);
      }
      return taken;
    },
    async getWithPasswordHash(username: string): Promise<MqttCredentialWithPasswordHash | undefined> {
      const row = await db.selectFrom('mqtt_credentials').selectAll().where('username', '=', username).executeTakeFirst();
      return row && { ...toMqttCredential(row), passwordHash: row.password_hash };
    },
    async list(organizationId: string): Promise<MqttCredential[]> {
      const rows = await db
        .selectFrom('mqtt_credentials')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('username')
        .execute();
      return rows.map(toMqttCredential);
    },
    /** Every organization's active credentials with their sealed passwords: what a managed broker must know. */
    async listActiveSealed(): Promise<(MqttCredential & { sealedPassword: string | null })[]> {
      const rows = await db.selectFrom('mqtt_credentials').selectAll().where('revoked_at', 'is', null).orderBy('username').execute();
      return rows.map((row) => ({ ...toMqttCredential(row), sealedPassword: row.sealed_password }));
    },
    async revoke(username: string, revokedAt: number, organizationId?: string): Promise<boolean> {
      let query = db
        .updateTable('mqtt_credentials')
        .set({ revoked_at: revokedAt })
        .where('username', '=', username)
        .where('revoked_at', 'is', null);
      if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

function toMqttCredential(row: Selectable<MqttCredentialsTable>): MqttCredential {
  return {
    username: row.username,
    organizationId: row.organization_id,
    kind: row.kind as MqttCredentialKind,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
