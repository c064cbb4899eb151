import type { Page } from 'playwright-core';
import { seedCredentials } from '../lib/seed-store.js';

/** Signs the bench's Manager in through the studio's form. */
export async function signIn(page: Page): Promise<void> {
  await page.goto('/studio/sign-in');
  await page.getByLabel('E-mail').fill(seedCredentials.email);
  await page.getByLabel('Organization').fill(seedCredentials.organizationName);
  await page.getByLabel('Password').fill(seedCredentials.password);
  await page.getByRole('button', { name: 'Sign in' }).click();
  await page.getByRole('button', { name: 'Sign out' }).waitFor();
}
