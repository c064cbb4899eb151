import type { Kysely, Selectable } from 'kysely';
import type { ApiClient } from '../domain/identity/types.js';
import type { ApiClientsTable, Schema } from './schema.js';
import { insertUnique } from './store-errors.js';

export type ApiClientsStore = ReturnType<typeof apiClientsStore>;

export interface ApiClientWithSecretHash extends ApiClient {
  secretHash: string;
}

export function apiClientsStore(db: Kysely<Schema>) {
  return {
    async create(client: ApiClient, secretHash: string): Promise<ApiClient> {
      await insertUnique('API client', () =>
        db
          .insertInto('api_clients')
          .values({
            client_id: client.clientId,
            organization_id: client.organizationId,
            name: client.name,
            secret_hash: secretHash,
            created_at: client.createdAt,
            revoked_at: client.revokedAt,
          })
          .execute(),
      );
      return client;
    },
    async get(clientId: string): Promise<ApiClient | undefined> {
      const row = await db.selectFrom('api_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
      return row && toApiClient(row);
    },
    async getWithSecretHash(clientId: string): Promise<ApiClientWithSecretHash | undefined> {
      const row = await db.selectFrom('api_clients').selectAll().where('client_id', '=', clientId).executeTakeFirst();
      return row && { ...toApiClient(row), secretHash: row.secret_hash };
    },
    async list(organizationId: string): Promise<ApiClient[]> {
      const rows = await db
        .selectFrom('api_clients')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .orderBy('client_id')
        .execute();
      return rows.map(toApiClient);
    },
    /** Marks the client revoked; false when it does not exist or was already revoked. */
    async revoke(clientId: string, revokedAt: number, organizationId?: string): Promise<boolean> {
      let query = db
        .updateTable('api_clients')
        .set({ revoked_at: revokedAt })
        .where('client_id', '=', clientId)
        .where('revoked_at', 'is', null);
      if (organizationId !== undefined) query = query.where('organization_id', '=', organizationId);
      const result = await query.executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
  };
}

function toApiClient(row: Selectable<ApiClientsTable>): ApiClient {
  return {
    clientId: row.client_id,
    organizationId: row.organization_id,
    name: row.name,
    createdAt: row.created_at,
    revokedAt: row.revoked_at,
  };
}
