/** What every studio browser test shares: the built studio served by a platform of its own, and a headless Chromium. */
import { after, before } from 'node:test';
import type { Browser } from 'playwright-core';
import type { Clock } from '../../src/domain/clock.js';
import { ensureStudioBuilt, launchBrowser, openStudio } from '../helpers/browser.js';
import { cleanupStores, type StoreTarget } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';

export interface Studio {
  server: TestApp;
  browser: Browser;
  /** A new browser tab on the studio (`openStudio`), not signed in. */
  open(options?: Parameters<typeof openStudio>[2]): ReturnType<typeof openStudio>;
}

export interface StudioOptions {
  /** The store the platform runs on, fresh for these tests; the test app's own temporary SQLite store otherwise. */
  store?: StoreTarget;
  /** More of the platform's environment, asked for once the studio is built (it may start a service first). */
  env?: () => Promise<Record<string, string>>;
  clock?: Clock;
}

/**
 * Registers, inside a describe, the platform and the browser its tests drive; the studio is filled before the
 * first test. Hooks a test file registers after this call run after these (its seeding finds the platform up, its
 * teardown finds it stopped).
 */
export function useStudio(options: StudioOptions = {}): Studio {
  const studio = { open: (openOptions) => openStudio(studio.browser, studio.server, openOptions) } as Studio;
  before(async () => {
    await ensureStudioBuilt();
    const env = { ...(options.store && { DATABASE_URL: await options.store.createUrl() }), ...(await options.env?.()) };
    studio.server = await startTestApp(env, { clock: options.clock });
    studio.browser = await launchBrowser();
  });
  after(async () => {
    await studio.browser?.close();
    await studio.server?.stop();
    await cleanupStores();
  });
  return studio;
}

/** Names a screenshot of a run on `target`: the SQLite run's carry the documented names, the others' are suffixed. */
export const screenshotNames = (target: StoreTarget) => (name: string) => (target.name === 'sqlite' ? name : `${name}-${target.name}`);
