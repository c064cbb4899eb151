import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { testBootstrap, type TestApp } from './test-app.js';

const root = fileURLToPath(new URL('../../', import.meta.url));
const studioSources = join(root, 'studio');
const studioBuild = join(root, 'dist/studio');

/** Debian's chromium package (`.ci/run` installs it); CHROMIUM_PATH names another build. */
export const chromiumPath = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';

/** Why browser tests are skipped here, or false when a browser can be had (they never pass silently). */
export const browserSkipReason: string | false = existsSync(chromiumPath)
  ? false
  : `no Chromium at ${chromiumPath} (apt-get install chromium, or set CHROMIUM_PATH): studio browser tests skipped`;

/** Where each browser test saves its screenshots (README: "Studio screenshots"); CI keeps the folder as an artifact. */
export const screenshotDirectory = join(root, 'test-artifacts/studio');

function newestSource(directory: string): number {
  let newest = 0;
  for (const entry of readdirSync(directory, { withFileTypes: true })) {
    const path = join(directory, entry.name);
    newest = Math.max(newest, entry.isDirectory() ? newestSource(path) : statSync(path).mtimeMs);
  }
  return newest;
}

/**
 * Builds the studio when dist/studio is missing or older than its sources (`npm run build` does it first in CI;
 * this keeps a single test file runnable after an edit). Test files run in parallel: a directory made atomically
 * is the lock, and a file that finds it waits for the other's build.
 */
export async function ensureStudioBuilt(): Promise<void> {
  const index = join(studioBuild, 'index.html');
  const fresh = () => existsSync(index) && statSync(index).mtimeMs >= newestSource(studioSources);
  if (fresh()) return;
  const lock = join(root, 'dist/.studio-build-lock');
  mkdirSync(join(root, 'dist'), { recursive: true });
  for (let waited = 0; ; waited += 200) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (waited > 120_000) rmSync(lock, { recursive: true, force: true });
      await new Promise((resolve) => setTimeout(resolve, 200));
      if (fresh()) return;
    }
  }
  try {
    if (fresh()) return;
    const { build } = await import('vite');
    await build({ configFile: join(studioSources, 'vite.config.ts'), logLevel: 'warn' });
  } finally {
    rmSync(lock, { recursive: true, force: true });
  }
}

/** Headless Chromium as the issue prescribes: no sandbox (root in CI), no GPU, no calls to Google's services. */
export async function launchBrowser(): Promise<Browser> {
  return chromium.launch({
    executablePath: chromiumPath,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-quic',
      '--no-first-run',
      '--disable-sync',
    ],
  });
}

/**
 * A browser tab on the studio of `server`. Console errors and Content-Security-Policy violations are collected:
 * a test ends by asserting there were none (`pageErrors`), so a broken policy or an exception cannot pass unseen.
 */
export async function openStudio(
  browser: Browser,
  server: TestApp,
  options: { viewport?: { width: number; height: number }; path?: string; timezoneId?: string; hasTouch?: boolean } = {},
): Promise<{ context: BrowserContext; page: Page; pageErrors: string[] }> {
  const context = await browser.newContext({
    viewport: options.viewport ?? { width: 1280, height: 900 },
    baseURL: server.url(''),
    ...(options.timezoneId && { timezoneId: options.timezoneId }),
    // A touch screen (a phone): touch events and page.touchscreen work, as on a phone's browser.
    ...(options.hasTouch && { hasTouch: true }),
  });
  const page = await context.newPage();
  const pageErrors: string[] = [];
  page.on('pageerror', (error) => pageErrors.push(`pageerror: ${error.message}`));
  page.on('console', (message) => {
    if (message.type() === 'error') pageErrors.push(`console: ${message.text()}`);
  });
  await page.goto(options.path ?? '/');
  return { context, page, pageErrors };
}

/** Signs in through the studio's form (the bootstrap Manager unless told otherwise) and waits for the shell. */
export async function signInThroughForm(
  page: Page,
  credentials: { email: string; organizationName: string; password: string } = {
    email: testBootstrap.BOOTSTRAP_EMAIL,
    organizationName: testBootstrap.BOOTSTRAP_ORG,
    password: testBootstrap.BOOTSTRAP_PASSWORD,
  },
): Promise<void> {
  await page.getByLabel('E-mail').fill(credentials.email);
  await page.getByLabel('Organization').fill(credentials.organizationName);
  await page.getByLabel('Password').fill(credentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}

/**
 * Saves a screenshot as test-artifacts/studio/<name>.png (docs/studio.md shows some of them): the full page, or with
 * `fullPage: false` what the viewport shows now (the docs' pictures are a screen's size, scrolled to their subject).
 */
export async function saveScreenshot(page: Page, name: string, options: { fullPage?: boolean } = {}): Promise<string> {
  mkdirSync(screenshotDirectory, { recursive: true });
  const path = join(screenshotDirectory, `${name}.png`);
  await page.screenshot({ path, fullPage: options.fullPage ?? true });
  return path;
}

const axeSource = readFile(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

export interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[] }[];
}

/**
 * axe-core's serious and critical violations on the page as it is now (WCAG 2.1 A and AA rules). axe is evaluated
 * through the DevTools protocol, which the page's Content-Security-Policy does not govern.
 */
export async function seriousAccessibilityViolations(page: Page): Promise<AxeViolation[]> {
  await page.evaluate(await axeSource);
  // Runs in the page (a string, so this file needs no DOM types).
  const violations = (await page.evaluate(`axe
    .run(document, { runOnly: { type: 'tag', values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'] } })
    .then((result) => result.violations)`)) as AxeViolation[];
  return violations
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map((violation) => ({ ...violation, nodes: violation.nodes.slice(0, 5).map((node) => ({ target: node.target })) }));
}
