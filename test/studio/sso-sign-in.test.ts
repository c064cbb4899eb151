import assert from 'node:assert/strict';
import { after, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations } from '../helpers/browser.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { OidcTestProvider, freePort } from '../helpers/oidc-test-provider.js';
import { ssoEnv } from '../http/sso/sso-helpers.js';
import { useStudio } from './studio-test-helpers.js';

const storedSession = (page: Page) =>
  page.evaluate(
    (key) =>
      JSON.parse((globalThis as unknown as { localStorage: { getItem(key: string): string | null } }).localStorage.getItem(key) ?? 'null'),
    'thingdesk.studio.session',
  ) as Promise<{ accessToken: string; sso?: boolean } | null>;

describe('studio: single sign-on through the identity provider (SPEC 15)', { skip: browserSkipReason }, () => {
  const provider = new OidcTestProvider();
  const studio = useStudio({
    env: async () => {
      const port = await freePort();
      const publicUrl = `http://127.0.0.1:${port}`;
      await provider.start(publicUrl);
      return { ...ssoEnv(provider, publicUrl), PORT: String(port) };
    },
  });
  after(() => provider.stop());

  it('signs in with the provider button, lands on the page asked for, and signs out at the provider too', async () => {
    provider.signInAs = { sub: 'ivy', email: 'ivy@acme.test', email_verified: true, groups: ['thingdesk-field'] };
    const { context, page, pageErrors } = await studio.open({ path: '/studio/things' });
    // Where each console error happened: the provider's own pages (its favicon, ...) are not the studio's business.
    const platformErrors: string[] = [];
    page.on('console', (message) => {
      if (message.type() === 'error' && new URL(page.url()).origin === studio.server.url('').replace(/\/$/, ''))
        platformErrors.push(`${page.url()}: ${message.text()} ${message.location().url}`);
    });
    await page.waitForURL(/\/studio\/sign-in\?next=%2Fthings$/);
    const button = page.getByRole('link', { name: 'Sign in with Acme ID' });
    await button.waitFor();
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await saveScreenshot(page, 'sign-in-sso');

    await button.click();
    await page.waitForURL(/\/studio\/things$/);
    await page.getByText('ivy@acme.test').waitFor({ state: 'visible' });
    assert.equal(new URL(page.url()).hash, '', 'the one-time code is taken out of the address');
    const tokens = await storedSession(page);
    assert.equal(tokens?.sso, true);
    const client = new GraphqlClient(studio.server);
    client.accessToken = tokens!.accessToken;
    assert.equal((await client.request('{ me { role } }')).body.data?.me?.role, 'INSTALLER');

    await page.getByRole('button', { name: 'Sign out' }).click();
    // The provider asks to confirm its own sign-out, then sends the browser back to the studio's sign-in.
    await page.waitForURL((url) => url.origin === provider.issuer);
    await page.getByRole('button', { name: /yes/i }).click();
    await page.waitForURL(/\/studio\/sign-in/);
    assert.equal(await storedSession(page), null);
    assert.equal((await client.request('{ me { role } }')).body.errors?.[0]?.extensions?.code, 'UNAUTHENTICATED');
    assert.deepEqual(platformErrors, []);
    assert.deepEqual(
      pageErrors.filter((line) => !line.startsWith('console: ')),
      [],
    );
    await context.close();
  });
});
