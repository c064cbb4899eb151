import type { Kysely, Selectable } from 'kysely';
import type { StoredSigningKey } from '../domain/auth/auth-types.js';
import type { Schema, SigningKeysTable } from './schema.js';

export type SigningKeysStore = ReturnType<typeof signingKeysStore>;

export function signingKeysStore(db: Kysely<Schema>) {
  return {
    async create(key: StoredSigningKey): Promise<void> {
      await db
        .insertInto('signing_keys')
        .values({
          kid: key.kid,
          private_jwk: key.privateJwk,
          public_jwk: key.publicJwk,
          created_at: key.createdAt,
          retired_at: key.retiredAt,
        })
        .execute();
    },
    /** Newest first. */
    async list(): Promise<StoredSigningKey[]> {
      const rows = await db.selectFrom('signing_keys').selectAll().orderBy('created_at', 'desc').orderBy('kid', 'desc').execute();
      return rows.map(toStoredKey);
    },
    /**
     * Replaces a key's private JWK stored in plain text by its sealed form; does nothing when the row no longer
     * holds `plainJwk` (another instance sealed it first).
     */
    async sealPrivateJwk(kid: string, plainJwk: string, sealedJwk: string): Promise<void> {
      await db
        .updateTable('signing_keys')
        .set({ private_jwk: sealedJwk })
        .where('kid', '=', kid)
        .where('private_jwk', '=', plainJwk)
        .execute();
    },
    /** Removes every key (`thingdesk keys reset`, when the key they were sealed under is lost). */
    async deleteAll(): Promise<void> {
      await db.deleteFrom('signing_keys').execute();
    },
    /** Retires every key still signing except `keepKid`, so exactly one key signs at a time. */
    async retireAllExcept(keepKid: string, retiredAt: number): Promise<void> {
      await db
        .updateTable('signing_keys')
        .set({ retired_at: retiredAt })
        .where('kid', '!=', keepKid)
        .where('retired_at', 'is', null)
        .execute();
    },
  };
}

function toStoredKey(row: Selectable<SigningKeysTable>): StoredSigningKey {
  return { kid: row.kid, privateJwk: row.private_jwk, publicJwk: row.public_jwk, createdAt: row.created_at, retiredAt: row.retired_at };
}
