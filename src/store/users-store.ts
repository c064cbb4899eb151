import type { Kysely, Selectable } from 'kysely';
import type { Role, User } from '../domain/identity/types.js';
import type { Schema, UsersTable } from './schema.js';
import { insertUnique } from './store-errors.js';

export type UsersStore = ReturnType<typeof usersStore>;

/** A user together with the password hash, for sign-in only; never leaves the domain. */
export interface UserWithPasswordHash extends User {
  passwordHash: string;
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
      return row && { ...toUser(row), passwordHash: row.password_hash };
    },
    async list(organizationId: string): Promise<User[]> {
      const rows = await db.selectFrom('users').selectAll().where('organization_id', '=', organizationId).orderBy('email_key').execute();
      return rows.map(toUser);
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
