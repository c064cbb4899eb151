/**
 * The thing page's charts read right (issue 38): value-axis labels of an air pressure near 101,000 Pa and of a
 * humidity with decimals near 94.475 %RH lie in the range the `series` API answers (never cut to "1,000" or
 * "4.475"); the catalog names and units label them; hovering shows a point's time and value; dragging zooms and
 * "Reset zoom" goes back. At 1440 x 900 and 390 x 844, axe clean, no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { Page } from 'playwright-core';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import type { GraphqlClient } from '../helpers/graphql-client.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';
import { checkValueAxis, labelValue } from './chart-axis-checks.js';
import { useStudio } from './studio-test-helpers.js';

after(closeMqttClients);

const nowS = Math.floor(Date.now() / 1000);
/** Readings every 30 minutes over the last day: raw points in the day's window. */
const readings = Array.from({ length: 40 }, (_, index) => ({
  tsmId: 12100,
  tsmEv: 10,
  tsmTs: nowS - 600 - index * 1800,
  tsmTuid: 'CHART-P',
  airp: 101_000 + Math.round(Math.sin(index / 5) * 400),
  humd: Number((94.475 + Math.cos(index / 4) * 0.02).toFixed(3)),
}));

interface Point {
  t: number;
  avg: number;
  min: number;
  max: number;
}

/** Parses an axis label as the chart wrote it (en-US grouping: "101,200", "94.48"). */

describe('studio: thing charts read right, hover, zoom and catalog names', { skip: browserSkipReason }, () => {
  const studio = useStudio();
  let manager: GraphqlClient;
  before(async () => {
    manager = (await signInAs(studio.server, 'Manager')).client;
    await publishUplinks(studio.server, readings, 'GW-C');
    await publishUplinks(
      studio.server,
      [{ tsmId: 1210, tsmEv: 10, tsmTs: nowS - 300, tsmTuid: 'CHART-P', lat: 60.17, lon: 24.94, lacr: 10 }],
      'GW-C',
    );
  });

  async function apiPoints(field: string): Promise<Point[]> {
    const to = Math.floor(Date.now() / 1000);
    const result = await manager.request(
      'query S($field: String!, $from: Int!, $to: Int!) { series(tuid: "CHART-P", tsmId: 12100, field: $field, from: $from, to: $to, maxPoints: 1000) { points { t avg min max } } }',
      { field, from: to - 86_400, to },
    );
    return dataOf(result).series.points as Point[];
  }

  async function openDayCharts(viewport: { width: number; height: number }) {
    const opened = await studio.open({ path: '/studio/things/CHART-P', viewport });
    await signInThroughForm(opened.page);
    // The thing also reported its location (1210): the weather report is chosen by its id.
    await opened.page.getByLabel('Message', { exact: true }).selectOption('12100');
    await opened.page.getByRole('button', { name: 'Last day' }).click();
    for (const field of ['airp', 'humd']) await opened.page.locator(`figure[data-field="${field}"][data-render-ms]`).waitFor();
    return opened;
  }

  async function checkLabels(page: Page, field: string, scale: { atLeast: number; below: number }) {
    const points = await apiPoints(field);
    assert.ok(points.length >= 20, `${field}: ${points.length} points`);
    await checkValueAxis(page, field, points, scale);
    return points;
  }

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`labels match series, names come from the catalog, hover and zoom work (${viewport.width} x ${viewport.height})`, async () => {
      const { context, page, pageErrors } = await openDayCharts(viewport);

      // MAP_LINK_URL is unset: the location is shown, with no link to a map service.
      const location = page.getByRole('region', { name: 'Location', exact: true });
      await location.getByText(/60[.,]17/).waitFor();
      assert.equal(await location.getByRole('link').count(), 0);

      // Catalog names and units, not wire names.
      const pressure = page.getByRole('figure', { name: /^Air pressure \(Pa\)/ });
      const humidity = page.getByRole('figure', { name: /^Relative humidity \(%RH\)/ });
      await pressure.waitFor();
      await humidity.waitFor();
      const option = (await page.getByLabel('Message', { exact: true }).locator('option').allTextContents()).join(' ');
      assert.match(option, /Weather Info \(12100\): Air pressure, Relative humidity/);

      const pressurePoints = await checkLabels(page, 'airp', { atLeast: 99_000, below: 103_000 });
      await checkLabels(page, 'humd', { atLeast: 94, below: 95 });

      // Hover: the tooltip names a point's time and its value with the unit, one the API answered.
      const plot = pressure.locator('.u-over');
      const box = (await plot.boundingBox())!;
      await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2);
      const tip = pressure.getByRole('tooltip');
      await tip.waitFor();
      const tipText = (await tip.textContent()) ?? '';
      const shown = /([\d,]+(?:\.\d+)?) Pa/.exec(tipText);
      assert.ok(shown, tipText);
      assert.ok(
        pressurePoints.some((point) => Math.abs(point.avg - labelValue(shown[1]!)) < 0.001),
        `${shown[1]} is not a value of series`,
      );
      assert.match(tipText, /UTC|GMT|[A-Z]{2,4}/);

      // Drag across the middle: the chart zooms (fewer seconds shown), then "Reset zoom" shows the day again.
      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
      await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      const reset = pressure.getByRole('button', { name: 'Reset zoom' });
      await reset.waitFor();
      const [zoomFrom, zoomTo] = ((await pressure.getAttribute('data-zoom')) ?? '').split('-').map(Number);
      assert.ok(zoomTo! - zoomFrom! > 0 && zoomTo! - zoomFrom! < 86_400 * 0.6, `zoom ${zoomFrom}..${zoomTo}`);
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, `thing-charts-${viewport.width}`);
      // For docs/studio.md: the screen with the zoomed charts in its middle.
      await pressure.evaluate((element) => element.scrollIntoView({ block: 'center' }));
      await saveScreenshot(page, `thing-charts-${viewport.width}-view`, { fullPage: false });
      // The dark theme (the system's setting) keeps the tooltip and the zoom line readable.
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await page.emulateMedia({ colorScheme: 'light' });
      await reset.click();
      await reset.waitFor({ state: 'detached' });
      assert.equal(await pressure.getAttribute('data-zoom'), null);

      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  }
});
