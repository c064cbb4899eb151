/**
 * The studio's audit log page (SPEC 14, issue 37): a Manager reaches it from a thing's page with the thing's entries
 * (the target filter), pages back with the cursor, reads each entry's changes and outcome, filters by action, actor
 * and time with the filters kept in the URL; axe clean. An Installer is not offered it.
 */
import assert from 'node:assert/strict';
import { before, describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { signInAs, type SignedInUser } from '../helpers/graphql-users.js';
import { useStudio } from './studio-test-helpers.js';

const tuid = 'AUDIT-PAGE-1';
/** More group assignments of the thing than one page of the log (50) shows. */
const assignments = 54;

describe('studio: the audit log page', { skip: browserSkipReason }, () => {
  const studio = useStudio();
  let installer: SignedInUser;

  before(async () => {
    const manager = new GraphqlClient(studio.server);
    await manager.login();
    const ok = async (query: string, variables: Record<string, unknown> = {}) => {
      const response = await manager.request(query, variables);
      assert.equal(response.body.errors, undefined, JSON.stringify(response.body));
    };
    for (const groupId of ['audit-a', 'audit-b'])
      await ok('mutation($g: String!) { createGroup(groupId: $g) { groupId } }', { g: groupId });
    for (let i = 0; i < assignments; i++) {
      await ok('mutation($t: ID!, $g: String!) { assignThingToGroup(tuid: $t, groupId: $g) { tuid } }', {
        t: tuid,
        g: i % 2 === 0 ? 'audit-a' : 'audit-b',
      });
    }
    await ok('mutation($t: ID!) { setInstallationStatus(tuid: $t, status: "installed") { tuid } }', { t: tuid });
    installer = await signInAs(studio.server, 'Installer');
    // Refused by the Installer's schema: recorded as denied.
    const refused = await installer.client.request('mutation { createGroup(groupId: "installers-own") { groupId } }');
    assert.ok(refused.body.errors, 'an Installer cannot create a group');
  });

  it("a Manager reads a thing's entries from its page, pages back, filters (kept in the URL); an Installer is not offered it", async () => {
    const { context, page, pageErrors } = await studio.open({ path: `/studio/things/${tuid}`, viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page);
    await page.getByRole('link', { name: `Audit log entries of ${tuid}` }).click();
    await page.getByRole('heading', { level: 1, name: 'Audit log' }).waitFor();
    const nav = page.getByRole('navigation', { name: 'Main' });
    assert.equal(await nav.getByRole('link', { name: 'Audit log' }).getAttribute('aria-current'), 'page');
    assert.equal(await page.getByLabel('Target type').inputValue(), 'thing');
    assert.equal(await page.getByLabel('Target', { exact: true }).inputValue(), tuid);
    const rows = page.locator('tbody tr');
    await rows.nth(49).waitFor();
    assert.equal(await rows.count(), 50, 'one page of 50, newest first');
    const newest = rows.first();
    assert.equal(await newest.getByRole('rowheader').textContent(), 'thing.set_installation_status');
    assert.match((await newest.textContent()) ?? '', /status: new → installed/);
    assert.match((await newest.textContent()) ?? '', /success/);
    assert.match((await rows.nth(1).textContent()) ?? '', /groupId: audit-a → audit-b/);
    await page.getByRole('button', { name: 'Show older entries' }).click();
    // Every assignment and the status change, the oldest (the claim into audit-a) last; no more pages.
    await rows.nth(assignments).waitFor();
    assert.equal(await rows.count(), assignments + 1);
    assert.match((await rows.last().textContent()) ?? '', /groupId: — → audit-a/);
    assert.equal(await page.getByRole('button', { name: 'Show older entries' }).count(), 0);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);

    // Filters by action, then by actor and outcome: the Installer's refused attempt.
    await page.getByLabel('Action').fill('thing.set_installation_status');
    await page.waitForURL(/action=thing.set_installation_status/);
    await rows.nth(1).waitFor({ state: 'detached' });
    assert.equal(await rows.count(), 1);
    await page.getByLabel('Target type').selectOption('');
    await page.getByLabel('Target', { exact: true }).fill('');
    await page.getByLabel('Action').fill('graphql.createGroup');
    await page.getByLabel('Actor').fill(installer.email);
    const denied = rows.filter({ hasText: 'installers-own' });
    await denied.waitFor();
    assert.match((await denied.textContent()) ?? '', /denied/);
    assert.match((await denied.textContent()) ?? '', new RegExp(`${installer.email}\\s*user via graphql`));
    assert.equal(await rows.count(), 1);
    // A time range after every entry: nothing; the range is in the URL and a reload shows the same filters.
    await page.getByLabel('From').fill('2099-01-01T00:00');
    await page.getByText('No entry matches these filters.').waitFor();
    await page.waitForURL((url) => url.searchParams.get('from') === String(Date.parse('2099-01-01T00:00') / 1000));
    await page.reload();
    await page.getByText('No entry matches these filters.').waitFor();
    assert.equal(await page.getByLabel('Actor').inputValue(), installer.email);
    assert.equal(await page.getByLabel('From').inputValue(), '2099-01-01T00:00');
    await page.getByLabel('From').fill('');
    await denied.waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'audit-log');
    assert.deepEqual(pageErrors, []);
    await context.close();

    // The Installer: no link on the thing's page, no entry in the navigation, and the page itself refused.
    const other = await studio.open({ path: `/studio/things/${tuid}` });
    await signInThroughForm(other.page, { email: installer.email, organizationName: 'Acme', password: installer.password });
    await other.page.getByRole('heading', { level: 2, name: 'Summary' }).waitFor();
    assert.equal(await other.page.getByRole('link', { name: /Audit log/ }).count(), 0);
    await other.page.goto('/studio/audit');
    await other.page.getByText('Your role cannot open this page.').waitFor();
    const installerNav = other.page.getByRole('navigation', { name: 'Main' });
    await installerNav.getByRole('link', { name: 'Installer' }).waitFor({ state: 'visible' });
    assert.equal(await installerNav.getByRole('link', { name: 'Audit log' }).count(), 0);
    assert.deepEqual(other.pageErrors, []);
    await other.context.close();
  });
});
