import { query } from './graphql-client';
import type { NamedMessage } from './catalog-names';

export * from './catalog-names';

/**
 * The message catalog (GraphQL `catalog`, the one statement of every id's fields) as the studio names things with
 * it: a field's words and unit instead of its wire name (`airp` reads "Air pressure (Pa)"), a message id's name.
 * Read once per tab: the catalog is the platform's build, not data that changes while a page is open.
 */

const catalogQuery = /* GraphQL */ `
  query StudioCatalog {
    catalog
  }
`;

let pending: Promise<NamedMessage[]> | undefined;

/** The catalog, read at most once per tab (a failed read is tried again by the next caller). */
export function loadCatalog<Entry extends NamedMessage = NamedMessage>(): Promise<Entry[]> {
  pending ??= query<{ catalog: NamedMessage[] }>(catalogQuery)
    .then((result) => result.catalog)
    .catch((error: unknown) => {
      pending = undefined;
      throw error;
    });
  return pending as Promise<Entry[]>;
}
