/** Installer mode on a phone reading a device's QR code: from a photo, and from the camera. */
import assert from 'node:assert/strict';
import { fileURLToPath } from 'node:url';
import { describe, it } from 'node:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { readFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { chromium, type Browser } from 'playwright-core';
import { tuidFromImcPsn } from '../../src/domain/things/device-code.js';
import {
  browserSkipReason,
  chromiumPath,
  openStudio,
  saveScreenshot,
  seriousAccessibilityViolations,
  signInThroughForm,
} from '../helpers/browser.js';
import { browserStoreTargets } from '../helpers/databases.js';
import { phone, useInstallerStudio } from './installer-helpers.js';

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

for (const target of browserStoreTargets) {
  describe(`studio: installer mode on a phone (${target.name})`, { skip: browserSkipReason || target.skip }, () => {
    const setup = useInstallerStudio(target);
    const { studio, openInstaller } = setup;

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
      const origin = new URL(studio.server.url('/')).origin;
      assert.ok(
        wasmRequests.every((url) => url.startsWith(`${origin}/studio/`)),
        JSON.stringify(wasmRequests),
      );
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, 'installer-qr-photo');
      assert.deepEqual(pageErrors, []);
      await context.close();
    });

    it('scans the QR code with the camera (a fake camera showing the code) and finds the device', async () => {
      const video = await qrCameraFile(studio.browser);
      // Chromium's fake camera plays the video, and its fake prompt grants the page's request for the camera.
      const fakeCamera = [
        '--use-fake-ui-for-media-stream',
        '--use-fake-device-for-media-stream',
        `--use-file-for-fake-video-capture=${video}`,
      ];
      const cameraBrowser = await chromium.launch({
        executablePath: chromiumPath,
        headless: true,
        args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run', ...fakeCamera],
      });
      try {
        const { context, page, pageErrors } = await openStudio(cameraBrowser, studio.server, { path: '/studio/install', viewport: phone });
        await signInThroughForm(page, { email: setup.installer.email, organizationName: 'Acme', password: setup.installer.password });
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
  });
}
