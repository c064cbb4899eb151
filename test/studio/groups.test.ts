/**
 * The studio's groups pages in a real browser: create, rename and delete through the UI match the API, a group's
 * things and a bulk assignment (ticked and pasted TUIDs in one request), and a Viewer who sees no write controls.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { publishUplinks } from '../helpers/uplinks.js';
import { useStudio } from './studio-test-helpers.js';

const groupsQuery = '{ groups(limit: 1000) { groupId description thingCount } }';

describe('studio: groups', { skip: browserSkipReason }, () => {
  const studio = useStudio();
  let manager: GraphqlClient;
  const apiGroups = async () =>
    dataOf(await manager.request(groupsQuery)).groups as { groupId: string; description: string | null; thingCount: number }[];

  before(async () => {
    manager = new GraphqlClient(studio.server);
    await manager.login();
    await publishUplinks(
      studio.server,
      ['SITE-1', 'SITE-2', 'SITE-3', 'SITE-4', 'SITE-5', 'OTHER-1'].map((tuid, index) => ({
        tsmId: 1110,
        tsmEv: 10,
        tsmTs: 1_790_000_000 + index,
        tsmTuid: tuid,
        batl: 80 + index,
      })),
    );
    dataOf(await manager.request('mutation { createGroup(groupId: "warehouse", description: "North warehouse") { groupId } }'));
    dataOf(await manager.request('mutation { assignThingToGroup(tuid: "OTHER-1", groupId: "warehouse") { tuid } }'));
  });

  it('creates, renames and deletes a group through the UI, and the list matches the API each time', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/groups' });
    await signInThroughForm(page);
    const table = page.getByRole('table');
    await table.getByRole('link', { name: 'warehouse' }).waitFor();
    // Each group's count is the API's.
    for (const group of await apiGroups()) {
      const row = table.getByRole('row').filter({ has: page.getByRole('link', { name: group.groupId, exact: true }) });
      assert.match((await row.textContent()) ?? '', new RegExp(`${group.thingCount} things?`));
    }

    // Create.
    await page.getByLabel('Group id', { exact: true }).fill('site-a');
    await page.getByLabel('Description').fill('Site A, floor 2');
    await page.getByRole('button', { name: 'Create group' }).click();
    await table.getByRole('link', { name: 'site-a', exact: true }).waitFor();
    assert.deepEqual(
      (await apiGroups()).find((group) => group.groupId === 'site-a'),
      { groupId: 'site-a', description: 'Site A, floor 2', thingCount: 0 },
    );
    // A refused id lands on its input.
    await page.getByLabel('Group id', { exact: true }).fill('not valid');
    await page.getByRole('button', { name: 'Create group' }).click();
    await page.locator('#new-group-id[aria-invalid="true"]').waitFor();
    assert.match((await page.locator('#new-group-id-error').textContent()) ?? '', /groupId/);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'groups-list');

    // Rename, in its dialog.
    await page.getByRole('button', { name: 'Rename site-a' }).click();
    const renameDialog = page.getByRole('dialog', { name: 'Rename site-a' });
    await renameDialog.getByLabel('New group id').fill('site-b');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await renameDialog.getByRole('button', { name: 'Rename' }).click();
    await table.getByRole('link', { name: 'site-b', exact: true }).waitFor();
    assert.equal(await renameDialog.count(), 0);
    let groups = (await apiGroups()).map((group) => group.groupId);
    assert.ok(groups.includes('site-b') && !groups.includes('site-a'), groups.join());

    // Delete asks first; Cancel keeps the group.
    await page.getByRole('button', { name: 'Delete site-b' }).click();
    const deleteDialog = page.getByRole('dialog', { name: 'Delete site-b?' });
    await deleteDialog.getByRole('button', { name: 'Cancel' }).click();
    assert.ok((await apiGroups()).some((group) => group.groupId === 'site-b'));
    await page.getByRole('button', { name: 'Delete site-b' }).click();
    await deleteDialog.getByRole('button', { name: 'Delete group' }).click();
    await table.getByRole('link', { name: 'site-b', exact: true }).waitFor({ state: 'detached' });
    groups = (await apiGroups()).map((group) => group.groupId);
    assert.ok(!groups.includes('site-b'), groups.join());

    // The search narrows the list and is kept in the URL.
    await page.getByLabel('Search groups').fill('north');
    await page.waitForURL(/\/studio\/groups\?q=north$/);
    await table.getByRole('link', { name: 'unassigned' }).waitFor({ state: 'detached' });
    const shown = await table.getByRole('link').allTextContents();
    const expected = dataOf(await manager.request('{ groups(q: "north") { groupId } }')).groups.map((g: { groupId: string }) => g.groupId);
    assert.deepEqual(shown, expected);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it("assigns ticked and pasted things to a group in one request, and lists the group's things as the API does", async () => {
    dataOf(await manager.request('mutation { createGroup(groupId: "site-c") { groupId } }'));
    const { context, page, pageErrors } = await studio.open({ path: '/studio/groups/site-c' });
    await signInThroughForm(page);
    await page.getByText('No things in this group yet.').waitFor();
    await page.getByLabel('TUID contains').fill('SITE-');
    await page.getByRole('checkbox', { name: /SITE-1/ }).check();
    await page.getByRole('checkbox', { name: /SITE-2/ }).check();
    await page.getByLabel('Or paste TUIDs').fill('SITE-3, SITE-4\nbad#tuid\nNOPE-DOES-NOT-EXIST');
    const requests: string[] = [];
    page.on('request', (request) => {
      if (request.method() === 'POST' && /assignThings/.test(request.postData() ?? '')) requests.push(request.postData() ?? '');
    });
    // A TUID never heard from is listed and asked about before anything is claimed (SPEC section 16).
    await page.getByRole('button', { name: 'Assign 6 things' }).click();
    const question = page.getByRole('alertdialog');
    await question.waitFor();
    assert.deepEqual(await question.getByRole('listitem').allTextContents(), ['NOPE-DOES-NOT-EXIST']);
    assert.equal(requests.length, 0, 'nothing is assigned before the answer');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await question.getByRole('button', { name: 'Assign the others only' }).click();
    await page.getByRole('status').filter({ hasText: '4 assigned, 1 not.' }).waitFor();
    assert.equal(requests.length, 1, 'one request for the whole selection');
    const refusal = (await page.getByRole('status').filter({ hasText: 'bad#tuid' }).textContent()) ?? '';
    assert.match(refusal, /bad#tuid: .*tuid must be 1 to 64 characters/, 'the TUID rule in words');
    assert.doesNotMatch(refusal, /\[A-Za-z/, 'not a regular expression');
    assert.equal(dataOf(await manager.request('{ thing(tuid: "NOPE-DOES-NOT-EXIST") { tuid } }')).thing, null, 'the typo claimed nothing');

    const api = dataOf(await manager.request('{ group(groupId: "site-c") { tuids } }')).group.tuids;
    assert.deepEqual(api, ['SITE-1', 'SITE-2', 'SITE-3', 'SITE-4']);
    const rows = page.getByRole('table').getByRole('row');
    await rows.filter({ hasText: 'SITE-4' }).waitFor();
    const shownTuids = (await page.getByRole('table').getByRole('rowheader').allTextContents()).map((text) => text.trim());
    assert.deepEqual(shownTuids, api);
    assert.equal((await page.locator('.figure').textContent())?.trim(), String(api.length));
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'group-page');
    // The dark theme (the system setting) keeps the contrast too.
    await page.emulateMedia({ colorScheme: 'dark' });
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'group-page-dark');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });

  it('shows a Viewer the groups and their things but no control to create, rename, delete or assign', async () => {
    const viewer = await signInAs(studio.server, 'Viewer');
    const { context, page, pageErrors } = await studio.open({ path: '/studio/groups' });
    await signInThroughForm(page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
    await page.getByRole('table').getByRole('link', { name: 'warehouse' }).waitFor();
    assert.equal(
      await page
        .getByRole('button')
        .filter({ hasText: /Create group|Rename|Delete/ })
        .count(),
      0,
    );
    assert.equal(await page.getByLabel('Group id', { exact: true }).count(), 0);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'groups-viewer');

    await page.getByRole('link', { name: 'warehouse' }).click();
    await page.waitForURL(/\/studio\/groups\/warehouse$/);
    await page.getByRole('table').getByRole('link', { name: 'OTHER-1' }).waitFor();
    assert.equal(await page.getByRole('heading', { name: /Assign things/ }).count(), 0);
    assert.equal(await page.getByRole('button', { name: /^Assign/ }).count(), 0);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
