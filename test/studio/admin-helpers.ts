/** What the administration page's tests share: the studio on a store, the bootstrap Manager over the API, the page. */
import assert from 'node:assert/strict';
import { before } from 'node:test';
import type { Page } from 'playwright-core';
import { signInThroughForm } from '../helpers/browser.js';
import type { StoreTarget } from '../helpers/databases.js';
import { GraphqlClient, type GraphqlResponse } from '../helpers/graphql-client.js';
import { useStudio, type Studio } from './studio-test-helpers.js';

export interface AdminStudio {
  studio: Studio;
  /** The `data` of a query asked by the bootstrap Manager over the API: what the platform lists after each change. */
  apiData(query: string): Promise<GraphqlResponse['body']['data']>;
  /** The administration page (on `tab`, else its first), signed in as the bootstrap Manager. */
  openAdmin(tab?: string): Promise<{ page: Page; pageErrors: string[]; close: () => Promise<void> }>;
}

/** Registers, inside a describe, the studio on `target` and the Manager's API client, both ready before the first test. */
export function useAdminStudio(target: StoreTarget): AdminStudio {
  const studio = useStudio({ store: target });
  let api: GraphqlClient;
  before(async () => {
    api = new GraphqlClient(studio.server);
    await api.login();
  });
  return {
    studio,
    apiData: async (query) => {
      const response = await api.request(query);
      assert.equal(response.body.errors, undefined, JSON.stringify(response.body));
      return response.body.data;
    },
    openAdmin: async (tab) => {
      const { context, page, pageErrors } = await studio.open({ path: `/studio/admin${tab ? `?tab=${tab}` : ''}` });
      await signInThroughForm(page);
      await page.getByRole('heading', { level: 1, name: 'Administration' }).waitFor();
      return { page, pageErrors, close: () => context.close() };
    },
  };
}
