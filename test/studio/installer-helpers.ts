/** What the installer-mode tests share: the studio on a store with two groups, an Installer, and the page on a phone. */
import assert from 'node:assert/strict';
import { after, before } from 'node:test';
import { signInThroughForm } from '../helpers/browser.js';
import type { StoreTarget } from '../helpers/databases.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { signInAs, type SignedInUser } from '../helpers/graphql-users.js';
import { closeMqttClients } from '../helpers/uplinks.js';
import { useStudio, type Studio } from './studio-test-helpers.js';

/** A phone (issue 14: the installer flow at 390 x 844). */
export const phone = { width: 390, height: 844 };

export interface InstallerStudio {
  studio: Studio;
  /** The bootstrap Manager over the API, which the tests ask what the page should show. */
  manager: GraphqlClient;
  installer: SignedInUser;
  thingOf(tuid: string): Promise<{ tuid: string; timestamp: number | null; installationStatus: string; groupId: string } | null>;
  /** The installer page on the phone, signed in as the Installer. */
  openInstaller(): ReturnType<Studio['open']>;
}

/**
 * Registers, inside a describe, the studio on `target` with the groups north-wing and south-wing and an Installer;
 * the context is filled before the first test.
 */
export function useInstallerStudio(target: StoreTarget): InstallerStudio {
  // Registered first, so the MQTT clients the tests publish with close while the platform still runs.
  after(closeMqttClients);
  const studio = useStudio({ store: target });
  const context = {
    studio,
    thingOf: async (tuid) => {
      const response = await context.manager.request('query($t: ID!) { thing(tuid: $t) { tuid timestamp installationStatus groupId } }', {
        t: tuid,
      });
      return response.body.data?.thing;
    },
    openInstaller: async () => {
      const opened = await studio.open({ path: '/studio/install', viewport: phone });
      const { installer } = context;
      await signInThroughForm(opened.page, { email: installer.email, organizationName: 'Acme', password: installer.password });
      await opened.page.getByRole('heading', { level: 1, name: 'Install a device' }).waitFor();
      return opened;
    },
  } as InstallerStudio;
  before(async () => {
    context.manager = new GraphqlClient(studio.server);
    await context.manager.login();
    for (const [groupId, description] of [
      ['north-wing', 'Floors 1-3, north'],
      ['south-wing', 'Floors 1-3, south'],
    ]) {
      const created = await context.manager.request(
        'mutation($g: String!, $d: String) { createGroup(groupId: $g, description: $d) { groupId } }',
        {
          g: groupId,
          d: description,
        },
      );
      assert.equal(created.body.errors, undefined, JSON.stringify(created.body));
    }
    context.installer = await signInAs(studio.server, 'Installer');
  });
  return context;
}
