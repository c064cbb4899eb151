import { randomBytes } from 'node:crypto';
import type { Kysely } from 'kysely';
import type { Schema } from './schema.js';

export type ClusterSecretsStore = ReturnType<typeof clusterSecretsStore>;

/** Secrets the deployment's instances share (migration 0020), each made once, by whichever instance asks first. */
export function clusterSecretsStore(db: Kysely<Schema>) {
  return {
    /**
     * The secret named `name` (32 random bytes), created now if there is none yet. Instances starting together
     * agree: the insert of all but the first is ignored, and every one reads back the row that won.
     */
    async getOrCreate(name: string, now: number): Promise<Buffer> {
      await db
        .insertInto('cluster_secrets')
        .values({ name, secret: randomBytes(32).toString('base64'), created_at: now })
        .onConflict((oc) => oc.column('name').doNothing())
        .execute();
      const row = await db.selectFrom('cluster_secrets').select('secret').where('name', '=', name).executeTakeFirstOrThrow();
      return Buffer.from(row.secret, 'base64');
    },
  };
}
