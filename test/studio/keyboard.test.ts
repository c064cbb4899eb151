import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, saveScreenshot } from '../helpers/browser.js';
import { testBootstrap } from '../helpers/test-app.js';
import { useStudio } from './studio-test-helpers.js';

/** What has the keyboard focus now: its tag, id, and accessible text. */
const focused = (page: Page) =>
  page.evaluate(`(() => {
    const element = document.activeElement;
    return { tag: element?.tagName.toLowerCase(), id: element?.id, text: (element?.textContent ?? '').trim() };
  })()`) as Promise<{ tag: string; id: string; text: string }>;

describe('studio: usable with the keyboard alone', { skip: browserSkipReason }, () => {
  const studio = useStudio();

  it('signs in, skips to the content, and follows the main navigation without a mouse', async () => {
    const { context, page, pageErrors } = await studio.open({ path: '/studio/sign-in' });
    // The form in tab order: e-mail, organization, password; Enter submits.
    await page.getByLabel('E-mail').focus();
    await page.keyboard.type(testBootstrap.BOOTSTRAP_EMAIL);
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'organization');
    await page.keyboard.type(testBootstrap.BOOTSTRAP_ORG);
    await page.keyboard.press('Tab');
    assert.equal((await focused(page)).id, 'password');
    await page.keyboard.type(testBootstrap.BOOTSTRAP_PASSWORD);
    await page.keyboard.press('Enter');
    await page.getByRole('button', { name: 'Sign out' }).waitFor();
    await page.waitForURL(/\/studio\/$/);

    // The first Tab of a page reaches the skip link, which moves the focus to the main region.
    await page.keyboard.press('Tab');
    assert.deepEqual(await focused(page), { tag: 'a', id: '', text: 'Skip to content' });
    await page.keyboard.press('Enter');
    assert.equal((await focused(page)).id, 'main');

    // Tab through the header to the Things link; Enter opens the page and the focus lands on its content.
    await page.getByRole('link', { name: 'Overview' }).focus();
    let hops = 0;
    while ((await focused(page)).text !== 'Things' && hops++ < 10) await page.keyboard.press('Tab');
    assert.equal((await focused(page)).text, 'Things');
    await page.keyboard.press('Enter');
    await page.waitForURL(/\/studio\/things$/);
    await page.locator('#main:focus').waitFor();
    await saveScreenshot(page, 'keyboard-things');
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
