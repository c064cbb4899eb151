import type { Kysely } from 'kysely';

/**
 * Single sign-on with OpenID Connect (SPEC section 15).
 * - `users.sso_subject`: the provider's `sub` of a user who signed in through it (unique per organization), and
 *   `users.break_glass`: a Manager the CLI marked may still sign in with a password when AUTH_PASSWORD_LOGIN=false.
 * - `sessions.sso_sid` / `sessions.sso_sub`: the provider session and subject a session was started from, so a
 *   back-channel logout finds the sessions to end by `sid` or by `sub`.
 * - `sso_one_time`: what must be used at most once and only for a short while, shared by every instance through the
 *   store: a sign-in's state (with its nonce, PKCE verifier and next page), the one-time codes handed to the studio,
 *   and the `jti` of logout tokens already seen. Taking an entry deletes it, so exactly one taker wins.
 */
export async function up(db: Kysely<unknown>): Promise<void> {
  await db.schema.alterTable('users').addColumn('sso_subject', 'varchar(255)').execute();
  await db.schema
    .alterTable('users')
    .addColumn('break_glass', 'integer', (c) => c.notNull().defaultTo(0))
    .execute();
  await db.schema.createIndex('users_sso_subject').on('users').columns(['organization_id', 'sso_subject']).unique().execute();
  await db.schema.alterTable('sessions').addColumn('sso_sid', 'varchar(255)').execute();
  await db.schema.alterTable('sessions').addColumn('sso_sub', 'varchar(255)').execute();
  await db.schema.createIndex('sessions_sso_sid').on('sessions').columns(['sso_sid']).execute();
  await db.schema.createIndex('sessions_sso_sub').on('sessions').columns(['sso_sub']).execute();
  await db.schema
    .createTable('sso_one_time')
    .addColumn('id', 'varchar(200)', (c) => c.primaryKey())
    .addColumn('payload', 'text', (c) => c.notNull())
    .addColumn('expires_at', 'bigint', (c) => c.notNull())
    .execute();
  await db.schema.createIndex('sso_one_time_expiry').on('sso_one_time').columns(['expires_at']).execute();
}

export async function down(db: Kysely<unknown>): Promise<void> {
  await db.schema.dropTable('sso_one_time').execute();
  await db.schema.dropIndex('sessions_sso_sub').execute();
  await db.schema.dropIndex('sessions_sso_sid').execute();
  await db.schema.alterTable('sessions').dropColumn('sso_sub').execute();
  await db.schema.alterTable('sessions').dropColumn('sso_sid').execute();
  await db.schema.dropIndex('users_sso_subject').execute();
  await db.schema.alterTable('users').dropColumn('break_glass').execute();
  await db.schema.alterTable('users').dropColumn('sso_subject').execute();
}
