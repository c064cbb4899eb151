import type { Kysely, Selectable } from 'kysely';
import type { Organization } from '../domain/identity/types.js';
import type { OrganizationsTable, Schema } from './schema.js';
import { insertUnique } from './store-errors.js';

export type OrganizationsStore = ReturnType<typeof organizationsStore>;

export function organizationsStore(db: Kysely<Schema>) {
  return {
    async create(organization: Organization): Promise<Organization> {
      await insertUnique('organization', () =>
        db
          .insertInto('organizations')
          .values({
            id: organization.id,
            name: organization.name,
            name_key: organization.name.toLowerCase(),
            created_at: organization.createdAt,
          })
          .execute(),
      );
      return organization;
    },
    async get(id: string): Promise<Organization | undefined> {
      const row = await db.selectFrom('organizations').selectAll().where('id', '=', id).executeTakeFirst();
      return row && toOrganization(row);
    },
    async getByName(name: string): Promise<Organization | undefined> {
      const row = await db.selectFrom('organizations').selectAll().where('name_key', '=', name.toLowerCase()).executeTakeFirst();
      return row && toOrganization(row);
    },
    async list(): Promise<Organization[]> {
      const rows = await db.selectFrom('organizations').selectAll().orderBy('id').execute();
      return rows.map(toOrganization);
    },
    async count(): Promise<number> {
      const row = await db
        .selectFrom('organizations')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .executeTakeFirstOrThrow();
      return Number(row.n);
    },
  };
}

function toOrganization(row: Selectable<OrganizationsTable>): Organization {
  return { id: row.id, name: row.name, createdAt: row.created_at };
}
