/**
 * The docs page (issue 32, finding 13b): /docs and everything under it answer with a Content-Security-Policy that
 * forbids framing (frame-ancestors 'none', and X-Frame-Options DENY), and the page still works under it: a real
 * browser renders the operations with no policy violation.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { browserSkipReason, launchBrowser } from '../helpers/browser.js';
import { cleanupStores } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

after(cleanupStores);

describe('/docs security headers', () => {
  let server: TestApp;
  before(async () => {
    server = await startTestApp();
  });
  after(() => server?.stop());

  test('the page, its scripts and styles, and its document all carry the policy and refuse framing', async () => {
    const page = await fetch(server.url('/docs'));
    assert.equal(page.status, 200);
    const html = await page.text();
    const scripts = [...html.matchAll(/<script src="([^"]+)"/g)].map((match) => match[1]!);
    assert.ok(scripts.length >= 2, html);
    // No inline script: 'self' is enough for every script the page runs.
    assert.doesNotMatch(html, /<script(?![^>]*\ssrc=)[^>]*>/);
    const assets = scripts.map((src) => new URL(src, server.url('/docs/')).pathname);
    for (const path of ['/docs', '/docs/json', '/docs/static/swagger-ui.css', ...assets]) {
      const response = await fetch(server.url(path));
      assert.equal(response.status, 200, path);
      const policy = response.headers.get('content-security-policy') ?? '';
      assert.match(policy, /frame-ancestors 'none'/, path);
      assert.match(policy, /script-src 'self'(;|$)/, path);
      assert.match(policy, /default-src 'none'/, path);
      assert.equal(response.headers.get('x-frame-options'), 'DENY', path);
      assert.equal(response.headers.get('x-content-type-options'), 'nosniff', path);
      await response.arrayBuffer();
    }
  });

  test('in a browser the page renders its operations with no policy violation', { skip: browserSkipReason }, async () => {
    const browser = await launchBrowser();
    try {
      const page = await browser.newPage();
      const violations: string[] = [];
      page.on('console', (message) => {
        if (/Content Security Policy|Refused to/i.test(message.text())) violations.push(message.text());
      });
      page.on('pageerror', (error) => violations.push(error.message));
      await page.goto(server.url('/docs'));
      await page.locator('.swagger-ui .opblock').first().waitFor({ timeout: 30_000 });
      assert.ok((await page.locator('.swagger-ui .opblock').count()) > 5);
      assert.deepEqual(violations, []);
    } finally {
      await browser.close();
    }
  });
});
