/**
 * The studio's import page (SPEC section 12) in a real browser: a Manager chooses a file, sees the plan's counts
 * and its first error rows by line, chooses a fixed file and applies it; the thing page shows and edits the name
 * and labels. Axe finds nothing serious on either.
 */
import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import { RestClient } from '../helpers/rest-client.js';
import { useStudio } from './studio-test-helpers.js';

describe('studio: import of things', { skip: browserSkipReason }, () => {
  const studio = useStudio();

  it('plans a file with its error rows, applies a good one; the thing page edits name and labels', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/import', viewport: { width: 1440, height: 900 } });
    await signInThroughForm(page);
    await page.getByRole('heading', { name: 'Import things' }).waitFor();
    const bad = 'tuid,name,installation_status\nSTU-1,Pump,installed\nSTU-2,,sideways\n';
    await page.getByLabel('CSV or NDJSON file').setInputFiles({ name: 'things.csv', mimeType: 'text/csv', buffer: Buffer.from(bad) });
    const errors = page.getByRole('table');
    await errors.waitFor();
    assert.match((await errors.getByRole('row').nth(1).textContent()) ?? '', /^3\s*STU-2\s*installation_status must be one of/);
    assert.ok(await page.getByRole('button', { name: 'Apply' }).isDisabled(), 'a plan with errors cannot be applied');
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'import-plan-errors');

    const good = 'tuid,name,installation_status,label.site\nSTU-1,Pump,installed,north\nSTU-2,Valve,,north\n';
    await page.getByLabel('CSV or NDJSON file').setInputFiles({ name: 'things.csv', mimeType: 'text/csv', buffer: Buffer.from(good) });
    await page.getByRole('button', { name: 'Apply' }).and(page.locator(':enabled')).waitFor();
    await page.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('heading', { name: 'Applied' }).waitFor();
    const rest = new RestClient(studio.server);
    const thing = (await rest.get('/things/STU-1')).body.data;
    assert.deepEqual([thing.name, thing.labels, thing.installation_status], ['Pump', { site: 'north' }, 'installed']);

    await page.goto(studio.server.url('/studio/things/STU-2'));
    await page.getByLabel('Name', { exact: true }).waitFor();
    assert.equal(await page.getByLabel('Name', { exact: true }).inputValue(), 'Valve');
    await page.getByLabel('Name', { exact: true }).fill('Valve 2');
    await page.getByLabel(/^Labels/).fill('site=south\nroom=b-2');
    await page.getByRole('button', { name: 'Save name and labels' }).click();
    await page.getByText('Saved.').waitFor();
    const edited = (await rest.get('/things/STU-2')).body.data;
    assert.deepEqual([edited.name, edited.labels], ['Valve 2', { room: 'b-2', site: 'south' }]);
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
