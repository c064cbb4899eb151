import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { after, before, describe, it } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { tuidFromImcPsn } from '../../src/domain/things/device-code.js';
import {
  browserSkipReason,
  chromiumPath,
  ensureStudioBuilt,
  launchBrowser,
  openStudio,
  saveScreenshot,
  seriousAccessibilityViolations,
  signInThroughForm,
} from '../helpers/browser.js';
import { GraphqlClient } from '../helpers/graphql-client.js';
import { signInAs, type SignedInUser } from '../helpers/graphql-users.js';
import { cleanupStores, storeTargets } from '../helpers/databases.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

/** A phone (issue 14: the installer flow at 390 x 844). */
const phone = { width: 390, height: 844 };
/** A QR code holding `https://devices.example/i?imc=TDQR&psn=000777`, made once with zxing-wasm's writer. */
const qrFixture = fileURLToPath(new URL('./fixtures/device-qr.png', import.meta.url));

/**
 * A Y4M video (one frame, which Chromium's fake camera repeats) of the QR fixture on a white margin, written to a
 * temporary file: the page draws the PNG on a canvas and hands back its grey levels (no image library needed).
 */
async function qrCameraFile(browser: Browser): Promise<string> {
  const size = 320;
  const context = await browser.newContext();
  const page = await context.newPage();
  const png = (await readFile(qrFixture)).toString('base64');
  const grey = (await page.evaluate(
    `(async () => {
      const image = new Image();
      image.src = 'data:image/png;base64,${png}';
      await image.decode();
      const canvas = document.createElement('canvas');
      canvas.width = canvas.height = ${size};
      const draw = canvas.getContext('2d');
      draw.fillStyle = '#fff';
      draw.fillRect(0, 0, ${size}, ${size});
      draw.imageSmoothingEnabled = false;
      draw.drawImage(image, 40, 40, ${size - 80}, ${size - 80});
      const { data } = draw.getImageData(0, 0, ${size}, ${size});
      return Array.from({ length: ${size * size} }, (_, i) => data[i * 4]);
    })()`,
  )) as number[];
  await context.close();
  const chroma = Buffer.alloc((size / 2) * (size / 2) * 2, 128);
  const file = join(mkdtempSync(join(tmpdir(), 'thingdesk-qr-')), 'qr.y4m');
  writeFileSync(
    file,
    Buffer.concat([Buffer.from(`YUV4MPEG2 W${size} H${size} F10:1 Ip A1:1 C420jpeg\nFRAME\n`), Buffer.from(grey), chroma]),
  );
  return file;
}

for (const target of storeTargets) {
  describe(`studio: installer mode on a phone (${target.name})`, { skip: browserSkipReason || target.skip }, () => {
    let server: TestApp;
    let browser: Browser;
    let manager: GraphqlClient;
    let installer: SignedInUser;

    before(async () => {
      await ensureStudioBuilt();
      server = await startTestApp({ DATABASE_URL: await target.createUrl() });
      browser = await launchBrowser();
      manager = new GraphqlClient(server);
      await manager.login();
      for (const [groupId, description] of [
        ['north-wing', 'Floors 1-3, north'],
        ['south-wing', 'Floors 1-3, south'],
      ]) {
        const created = await manager.request(
          'mutation($g: String!, $d: String) { createGroup(groupId: $g, description: $d) { groupId } }',
          {
            g: groupId,
            d: description,
          },
        );
        assert.equal(created.body.errors, undefined, JSON.stringify(created.body));
      }
      installer = await signInAs(server, 'Installer');
    });
    after(async () => {
      await closeMqttClients();
      await browser?.close();
      await server?.stop();
      await cleanupStores();
    });

    const thingOf = async (tuid: string) => {
      const response = await manager.request('query($t: ID!) { thing(tuid: $t) { tuid timestamp installationStatus groupId } }', {
        t: tuid,
      });
      return response.body.data?.thing as { tuid: string; timestamp: number | null; installationStatus: string; groupId: string } | null;
    };

    async function openInstaller() {
      const opened = await openStudio(browser, server, { path: '/studio/install', viewport: phone });
      await signInThroughForm(opened.page, { email: installer.email, organizationName: 'Acme', password: installer.password });
      await opened.page.getByRole('heading', { level: 1, name: 'Install a device' }).waitFor();
      return opened;
    }

    it('takes a reporting device from IMC and PSN to installed in a group in four taps, as the API then says', async () => {
      const tuid = tuidFromImcPsn('TD01', '000123');
      const tsmTs = Math.floor(Date.now() / 1000) - 120;
      await publishUplinks(server, [{ tsmId: 1110, tsmEv: 10, tsmTs, tsmTuid: tuid, tsmGw: 'GW-1', batl: 91 }]);
      const before = await thingOf(tuid);
      assert.equal(before?.installationStatus, 'new');

      const { context, page, pageErrors } = await openInstaller();
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-start');

      await page.getByLabel('IMC').fill('TD01');
      await page.getByLabel('PSN').fill('000123');
      await page.getByRole('button', { name: 'Find device' }).click(); // tap 1
      await page.getByTestId('installer-tuid').filter({ hasText: tuid }).waitFor();
      // The last message and when it arrived are the API's: the summary's timestamp and messages(limit: 1).
      const shownAt = await page.locator('time').getAttribute('datetime');
      assert.equal(shownAt, new Date(before!.timestamp! * 1000).toISOString());
      const latest = await manager.request('query($t: ID!) { messages(tuid: $t, limit: 1) }', { t: tuid });
      const [message] = latest.body.data.messages as { tsmId: number; tsmEv: number }[];
      assert.equal(await page.getByTestId('installer-last-message').textContent(), `message ${message!.tsmId}, event ${message!.tsmEv}`);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-found');
      // The dark theme (the system setting) keeps the contrast too.
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-found-dark');
      await page.emulateMedia({ colorScheme: 'light' });

      // Touch targets of the flow are at least 44 px high, and nothing is wider than the phone.
      for (const name of ['Find device', 'Set installed', 'Scan QR code']) {
        const box = await page.getByRole('button', { name }).boundingBox();
        assert.ok(box && box.height >= 44, `${name}: ${JSON.stringify(box)}`);
      }
      assert.ok(((await page.evaluate('document.documentElement.scrollWidth')) as number) <= phone.width);

      await page.getByRole('button', { name: 'Set installed' }).click(); // tap 2
      await page.getByRole('list', { name: 'Groups' }).waitFor();
      assert.equal((await thingOf(tuid))?.installationStatus, 'installed');
      await page.getByRole('button', { name: /north-wing/ }).click(); // tap 3
      await page
        .getByRole('status')
        .filter({ hasText: `${tuid} is installed in group north-wing.` })
        .waitFor();
      const after = await thingOf(tuid);
      assert.equal(after?.installationStatus, 'installed');
      assert.equal(after?.groupId, 'north-wing');
      assert.equal(await page.getByRole('button', { name: /north-wing/ }).getAttribute('aria-pressed'), 'true');
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-done');

      await page.getByRole('button', { name: 'Install another device' }).click(); // tap 4
      assert.equal(await page.getByLabel('IMC').inputValue(), '');
      assert.equal(await page.getByTestId('installer-tuid').count(), 0);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('says "no message yet" for a device never heard, updates when it reports, and names both missing fields', async () => {
      const { context, page, pageErrors } = await openInstaller();
      await page.getByRole('button', { name: 'Find device' }).click();
      for (const label of ['IMC', 'PSN']) {
        const input = page.getByLabel(label);
        assert.equal(await input.getAttribute('aria-invalid'), 'true');
        assert.match((await page.locator(`#${await input.getAttribute('aria-describedby')}`).textContent()) ?? '', new RegExp(label));
      }

      const tuid = tuidFromImcPsn('TD99', '000001');
      // A TUID the platform's pattern refuses (a slash): its answer is shown, and nothing is looked up further.
      await page.getByLabel('IMC').fill('TD/99');
      await page.getByLabel('PSN').fill('000001');
      await page.getByRole('button', { name: 'Find device' }).click();
      await page.getByRole('alert').filter({ hasText: 'IMC and PSN make the TUID TD/99000001, which the platform refuses' }).waitFor();
      assert.equal(await page.getByTestId('installer-tuid').count(), 0);

      await page.getByLabel('IMC').fill('TD99');
      await page.getByLabel('PSN').fill('000001');
      await page.getByRole('button', { name: 'Find device' }).click();
      await page.getByTestId('installer-tuid').filter({ hasText: tuid }).waitFor();
      assert.equal(await thingOf(tuid), null);
      await page.getByText('No message yet.').waitFor();
      await page.getByText('not known to the platform yet').waitFor({ state: 'visible' });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-no-message');

      // The device reports while the installer waits: its first message shows without a reload.
      const tsmTs = Math.floor(Date.now() / 1000) - 5;
      await publishUplinks(server, [{ tsmId: 1112, tsmEv: 10, tsmTs, tsmTuid: tuid, tsmGw: 'GW-1', uptime: 3 }]);
      await page.locator(`time[datetime="${new Date(tsmTs * 1000).toISOString()}"]`).waitFor();
      assert.equal(await page.getByText('No message yet.').count(), 0);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it("reads the IMC and PSN from a photo of the device's QR code with the zxing decoder served by the platform", async () => {
      const { context, page, pageErrors } = await openInstaller();
      const wasmRequests: string[] = [];
      page.on('request', (request) => {
        if (request.url().endsWith('.wasm')) wasmRequests.push(request.url());
      });
      await page.locator('input[type=file]').setInputFiles(qrFixture);
      await page.getByRole('status').filter({ hasText: 'QR code read: IMC TDQR, PSN 000777.' }).waitFor();
      assert.equal(await page.getByLabel('IMC').inputValue(), 'TDQR');
      assert.equal(await page.getByLabel('PSN').inputValue(), '000777');
      await page
        .getByTestId('installer-tuid')
        .filter({ hasText: tuidFromImcPsn('TDQR', '000777') })
        .waitFor();
      // Headless Chromium on Linux has no native BarcodeDetector: the ponyfill's WebAssembly came from this server.
      if (!(await page.evaluate("'BarcodeDetector' in globalThis"))) assert.ok(wasmRequests.length > 0, 'the zxing wasm was loaded');
      const origin = new URL(server.url('/')).origin;
      assert.ok(
        wasmRequests.every((url) => url.startsWith(`${origin}/studio/`)),
        JSON.stringify(wasmRequests),
      );
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-qr-photo');
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('offers "Set installed" only where the state machine allows it, and says why not for a retired device', async () => {
      const tuid = tuidFromImcPsn('TDRT', '000042');
      const retired = await manager.request(
        'mutation($t: ID!) { setInstallationStatus(tuid: $t, status: "retired") { installationStatus } }',
        {
          t: tuid,
        },
      );
      assert.equal(retired.body.data?.setInstallationStatus?.installationStatus, 'retired', JSON.stringify(retired.body));
      const next = await manager.request('query($t: ID!) { thing(tuid: $t) { nextInstallationStatuses } }', { t: tuid });
      const allowed = next.body.data?.thing?.nextInstallationStatuses as string[];
      assert.ok(!allowed.includes('installed'), JSON.stringify(allowed));
      const { context, page, pageErrors } = await openInstaller();
      await page.getByLabel('IMC').fill('TDRT');
      await page.getByLabel('PSN').fill('000042');
      await page.getByRole('button', { name: 'Find device' }).click();
      const notice = page.getByRole('status').filter({ hasText: 'cannot be installed' });
      await notice.waitFor();
      assert.match((await notice.textContent()) ?? '', /retired/);
      assert.equal(await page.getByRole('button', { name: 'Set installed' }).count(), 0);
      assert.equal((await thingOf(tuid))?.installationStatus, 'retired');
      assert.equal(await page.getByRole('list', { name: 'Groups' }).count(), 0);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-refused');
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('scans the QR code with the camera (a fake camera showing the code) and finds the device', async () => {
      const video = await qrCameraFile(browser);
      const cameraBrowser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: [
          '--headless',
          '--no-sandbox',
          '--disable-gpu',
          '--no-first-run',
          '--use-fake-ui-for-media-stream',
          '--use-fake-device-for-media-stream',
          `--use-file-for-fake-video-capture=${video}`,
        ],
      });
      try {
        const { context, page, pageErrors } = await openStudio(cameraBrowser, server, { path: '/studio/install', viewport: phone });
        await signInThroughForm(page, { email: installer.email, organizationName: 'Acme', password: installer.password });
        await page.getByRole('button', { name: 'Scan QR code' }).click();
        await page.getByRole('status').filter({ hasText: 'QR code read: IMC TDQR, PSN 000777.' }).waitFor({ timeout: 20_000 });
        await page
          .getByTestId('installer-tuid')
          .filter({ hasText: tuidFromImcPsn('TDQR', '000777') })
          .waitFor();
        // The camera stopped once the code was read.
        assert.equal(await page.locator('video').count(), 0);
        await saveScreenshot(page, 'installer-camera');
        assert.deepEqual(pageErrors, []);
        await context.close();
      } finally {
        await cameraBrowser.close();
        rmSync(dirname(video), { recursive: true, force: true });
      }
    });

    it('is not offered to a Viewer, whose schema has no setInstallationStatus', async () => {
      const viewer = await signInAs(server, 'Viewer');
      const { context, page, pageErrors } = await openStudio(browser, server, { path: '/studio/install', viewport: phone });
      await signInThroughForm(page, { email: viewer.email, organizationName: 'Acme', password: viewer.password });
      await page.getByText('Your role cannot open this page.').waitFor();
      const nav = page.getByRole('navigation', { name: 'Main' });
      await nav.getByRole('link', { name: 'Things' }).waitFor({ state: 'visible' });
      assert.equal(await nav.getByRole('link', { name: 'Installer' }).count(), 0);
      assert.equal(await page.getByRole('button', { name: 'Set installed' }).count(), 0);
      await saveScreenshot(page, 'installer-viewer');
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  });
}
