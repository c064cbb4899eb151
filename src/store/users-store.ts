import type { Kysely, Selectable } from 'kysely';
import type { Role, User } from '../domain/identity/types.js';
import type { Schema, UsersTable } from './schema.js';
import { insertUnique } from './store-errors.js';

export type UsersStore = ReturnType<typeof usersStore>;

/** A user together with the password hash, for sign-in only; never leaves the domain. */
export interface UserWithPasswordHash extends User {
  passwordHash: string;
  /** A Manager the CLI marked may sign in with a password even when AUTH_PASSWORD_LOGIN=false. */
  breakGlass: boolean;
  /** The identity provider's `sub` once the user has signed in through it. */
  ssoSubject: string | null;
}

export function usersStore(db: Kysely<Schema>) {
  return {
    async create(user: User, passwordHash: string): Promise<User> {
      await insertUnique('user', () =>
        db
          .insertInto('users')
          .values({
            id: user.id,
            organization_id: user.organizationId,
            email: user.email,
            email_key: user.email.toLowerCase(),
            role: user.role,
            password_hash: passwordHash,
            created_at: user.createdAt,
          })
          .execute(),
      );
      return user;
    },
    async get(organizationId: string, id: string): Promise<User | undefined> {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toUser(row);
    },
    async getWithPasswordHashByEmail(organizationId: string, email: string): Promise<UserWithPasswordHash | undefined> {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('email_key', '=', email.toLowerCase())
        .executeTakeFirst();
      return row && toUserWithPasswordHash(row);
    },
    /** The user who signed in through the identity provider as `subject` (single sign-on). */
    async getBySsoSubject(organizationId: string, subject: string): Promise<User | undefined> {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('sso_subject', '=', subject)
        .executeTakeFirst();
      return row && toUser(row);
    },
    /** Ties a user to the provider's subject (first single sign-on of an existing user, or a new one). */
    async setSsoSubject(organizationId: string, id: string, subject: string): Promise<void> {
      await db
        .updateTable('users')
        .set({ sso_subject: subject })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .execute();
    },
    /** Marks or unmarks a user as break-glass (password sign-in when AUTH_PASSWORD_LOGIN=false); false: no such user. */
    async setBreakGlass(organizationId: string, id: string, breakGlass: boolean): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ break_glass: breakGlass ? 1 : 0 })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async list(organizationId: string): Promise<User[]> {
      const rows = await db.selectFrom('users').selectAll().where('organization_id', '=', organizationId).orderBy('email_key').execute();
      return rows.map(toUser);
    },
    /** The user with the password hash, for checking the current password before a change. */
    async getWithPasswordHash(organizationId: string, id: string): Promise<UserWithPasswordHash | undefined> {
      const row = await db
        .selectFrom('users')
        .selectAll()
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return row && toUserWithPasswordHash(row);
    },
    /** Replaces a user's password hash; false when there is no such user. */
    async updatePasswordHash(organizationId: string, id: string, passwordHash: string): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ password_hash: passwordHash })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async updateRole(organizationId: string, id: string, role: Role): Promise<boolean> {
      const result = await db
        .updateTable('users')
        .set({ role })
        .where('organization_id', '=', organizationId)
        .where('id', '=', id)
        .executeTakeFirst();
      return Number(result.numUpdatedRows) > 0;
    },
    async delete(organizationId: string, id: string): Promise<boolean> {
      const result = await db.deleteFrom('users').where('organization_id', '=', organizationId).where('id', '=', id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    },
  };
}

function toUser(row: Selectable<UsersTable>): User {
  return { id: row.id, organizationId: row.organization_id, email: row.email, role: row.role as Role, createdAt: row.created_at };
}

function toUserWithPasswordHash(row: Selectable<UsersTable>): UserWithPasswordHash {
  return { ...toUser(row), passwordHash: row.password_hash, breakGlass: row.break_glass === 1, ssoSubject: row.sso_subject };
}
