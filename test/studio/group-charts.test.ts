/**
 * A group's charts (issue 38): the group page charts its things' fields from `groupSeries` with the thing page's
 * chart: catalog names and units, value-axis labels at the data's scale (an air pressure near 101,000 Pa and a
 * humidity with decimals near 94.4 %RH, never cut off), a hover read-out that is a point `groupSeries` answered
 * (its mean and its number of readings), drag to zoom and a reset, a time-range picker. On a phone (a touch
 * screen, 390 x 844) a one-finger sideways drag or two fingers spread apart zoom like the mouse, the same reset
 * undoes it, and a vertical swipe over the chart still scrolls the page. 1440 x 900 and 390 x 844, light and dark,
 * axe clean, no console error.
 */
import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import type { CDPSession, Locator, Page } from 'playwright-core';
import { browserSkipReason, saveScreenshot, seriousAccessibilityViolations, signInThroughForm } from '../helpers/browser.js';
import type { GraphqlClient } from '../helpers/graphql-client.js';
import { dataOf, signInAs } from '../helpers/graphql-users.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';
import { checkValueAxis, labelValue } from './chart-axis-checks.js';
import { useStudio } from './studio-test-helpers.js';

after(closeMqttClients);

const nowS = Math.floor(Date.now() / 1000);
const sensors = ['HALL-1', 'HALL-2', 'HALL-3'];
/** Each sensor's readings every 30 minutes over the last day, a minute apart from the others'. */
const readings = sensors.flatMap((tuid, sensor) =>
  Array.from({ length: 40 }, (_, index) => ({
    tsmId: 12100,
    tsmEv: 10,
    tsmTs: nowS - 600 - index * 1800 - sensor * 60,
    tsmTuid: tuid,
    airp: 100_800 + sensor * 200 + Math.round(Math.sin(index / 5) * 300),
    humd: Number((94.4 + sensor * 0.05 + Math.cos(index / 4) * 0.02).toFixed(3)),
  })),
);

interface Point {
  t: number;
  avg: number;
  min: number;
  max: number;
  count: number;
}

/** A number as the chart wrote it (en-US grouping: "101,200", "94.45"). */

describe('studio: a group page charts its things from groupSeries', { skip: browserSkipReason }, () => {
  const studio = useStudio();
  let manager: GraphqlClient;
  before(async () => {
    manager = (await signInAs(studio.server, 'Manager')).client;
    dataOf(await manager.request('mutation { createGroup(groupId: "hall", description: "Assembly hall") { groupId } }'));
    // Heard once long ago, then put in the group: the day's readings arrive while they are in it.
    await publishUplinks(
      studio.server,
      sensors.map((tuid) => ({ tsmId: 1110, tsmEv: 10, tsmTs: nowS - 30 * 86_400, tsmTuid: tuid, batl: 90 })),
      'GW-H',
    );
    dataOf(await manager.request(`mutation { assignThingsToGroup(groupId: "hall", tuids: ${JSON.stringify(sensors)}) { tuid } }`));
    await publishUplinks(studio.server, readings, 'GW-H');
  });

  async function apiPoints(field: string): Promise<Point[]> {
    const to = Math.floor(Date.now() / 1000);
    const result = await manager.request(
      'query S($field: String!, $from: Int!, $to: Int!) { groupSeries(groupId: "hall", tsmId: 12100, field: $field, from: $from, to: $to, bucket: "1h", maxPoints: 1000) { points { t avg min max count } } }',
      { field, from: to - 86_400, to },
    );
    return dataOf(result).groupSeries.points as Point[];
  }

  async function openDayCharts(options: { viewport: { width: number; height: number }; hasTouch?: boolean }) {
    const opened = await studio.open({ path: '/studio/groups/hall', ...options });
    await signInThroughForm(opened.page);
    const charts = opened.page.getByRole('region', { name: 'Charts' });
    // The things also reported their battery (1110): the weather report is chosen by its id.
    await charts.getByLabel('Message', { exact: true }).selectOption('12100');
    await charts.getByRole('button', { name: 'Last day' }).click();
    for (const field of ['airp', 'humd']) await charts.locator(`figure[data-field="${field}"][data-render-ms]`).waitFor();
    return opened;
  }

  async function checkLabels(page: Page, field: string, scale: { atLeast: number; below: number }) {
    const points = await apiPoints(field);
    assert.ok(points.length >= 18, `${field}: ${points.length} points`);
    // Hourly buckets holding several things' readings: the chart is of the group, not of one thing.
    assert.ok(points.some((point) => point.count > 1));
    await checkValueAxis(page, field, points, scale);
    return points;
  }

  /** Hovers the middle of a chart: the read-out is a point of `points`, its mean with the unit and its readings. */
  async function checkHover(page: Page, figure: Locator, points: Point[], unit: string) {
    // In the middle of the screen, clear of the sticky header.
    await figure.locator('.u-over').evaluate((element) => element.scrollIntoView({ block: 'center' }));
    const box = (await figure.locator('.u-over').boundingBox())!;
    await page.mouse.move(box.x + box.width / 2, box.y + box.height / 2, { steps: 3 });
    const tip = figure.getByRole('tooltip');
    await tip.waitFor();
    const text = (await tip.textContent()) ?? '';
    const shown = new RegExp(`([\\d,]+(?:\\.\\d+)?) ${unit}`).exec(text);
    assert.ok(shown, text);
    const point = points.find((candidate) => Math.abs(candidate.avg - labelValue(shown[1]!)) < 0.001);
    assert.ok(point, `${shown[1]} is not a mean groupSeries answered`);
    if (point.count > 1) assert.match(text, new RegExp(`mean of ${point.count} readings`));
    return box;
  }

  const zoomOf = async (figure: Locator) => {
    const [from, to] = ((await figure.getAttribute('data-zoom')) ?? '').split('-').map(Number);
    return { from: from!, to: to! };
  };

  for (const viewport of [
    { width: 1440, height: 900 },
    { width: 390, height: 844 },
  ]) {
    it(`names, labels and read-outs match groupSeries; drag zooms and resets (${viewport.width} x ${viewport.height})`, async () => {
      const { context, page, pageErrors } = await openDayCharts({ viewport });
      const pressure = page.getByRole('figure', { name: /^Air pressure \(Pa\)/ });
      const humidity = page.getByRole('figure', { name: /^Relative humidity \(%RH\)/ });
      await pressure.waitFor();
      await humidity.waitFor();
      const option = (await page.getByLabel('Message', { exact: true }).locator('option').allTextContents()).join(' ');
      assert.match(option, /Weather Info \(12100\): Air pressure, Relative humidity/);

      const pressurePoints = await checkLabels(page, 'airp', { atLeast: 99_000, below: 103_000 });
      const humidityPoints = await checkLabels(page, 'humd', { atLeast: 94, below: 95 });
      await checkHover(page, humidity, humidityPoints, '%RH');
      await page.mouse.move(0, 0);
      const box = await checkHover(page, pressure, pressurePoints, 'Pa');
      // Near the right edge the read-out opens inwards: the page never grows sideways (it did, to 437 px, on a phone).
      await page.mouse.move(box.x + box.width * 0.98, box.y + box.height / 2, { steps: 3 });
      await pressure.getByRole('tooltip').waitFor();
      assert.ok(Number(await page.evaluate('document.documentElement.scrollWidth')) <= viewport.width, 'no sideways scroll');

      await page.mouse.move(box.x + box.width * 0.3, box.y + box.height / 2);
      await page.mouse.down();
      await page.mouse.move(box.x + box.width * 0.5, box.y + box.height / 2, { steps: 5 });
      await page.mouse.move(box.x + box.width * 0.7, box.y + box.height / 2, { steps: 5 });
      await page.mouse.up();
      const reset = pressure.getByRole('button', { name: 'Reset zoom' });
      await reset.waitFor();
      const zoom = await zoomOf(pressure);
      assert.ok(zoom.to - zoom.from > 0 && zoom.to - zoom.from < 86_400 * 0.6, `zoom ${zoom.from}..${zoom.to}`);
      assert.ok(Number(await page.evaluate('document.documentElement.scrollWidth')) <= viewport.width, 'no sideways scroll');
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, `group-charts-${viewport.width}`);
      // For docs/studio.md: the screen with the zoomed charts in its middle.
      await pressure.evaluate((element) => element.scrollIntoView({ block: 'center' }));
      await saveScreenshot(page, `group-charts-${viewport.width}-view`, { fullPage: false });
      await page.emulateMedia({ colorScheme: 'dark' });
      assert.deepEqual(await seriousAccessibilityViolations(page), []);
      await saveScreenshot(page, `group-charts-${viewport.width}-dark`);
      await page.emulateMedia({ colorScheme: 'light' });
      await reset.click();
      await reset.waitFor({ state: 'detached' });
      assert.equal(await pressure.getAttribute('data-zoom'), null);

      // The range picker: a week reads the week (the same hourly points, in a wider window).
      await page.getByRole('button', { name: 'Last week' }).click();
      await page.locator('figure[data-field="airp"][data-render-ms]').waitFor();
      assert.equal(Number(await pressure.getAttribute('data-points')), pressurePoints.length);
      assert.deepEqual(pageErrors, []);
      await context.close();
    });
  }

  /** Touches through the DevTools protocol, as a touch screen sends them (the browser scrolls or hands them over). */
  async function touch(session: CDPSession, strokes: { x: number; y: number }[][], steps = 8) {
    const at = (step: number) =>
      strokes.map((stroke, id) => {
        const [first, last] = [stroke[0]!, stroke[stroke.length - 1]!];
        return { x: first.x + ((last.x - first.x) * step) / steps, y: first.y + ((last.y - first.y) * step) / steps, id };
      });
    await session.send('Input.dispatchTouchEvent', { type: 'touchStart', touchPoints: at(0) });
    for (let step = 1; step <= steps; step++) await session.send('Input.dispatchTouchEvent', { type: 'touchMove', touchPoints: at(step) });
    await session.send('Input.dispatchTouchEvent', { type: 'touchEnd', touchPoints: [] });
  }

  it('on a touch screen: a sideways drag and a pinch zoom, the reset undoes them, a vertical swipe scrolls', async () => {
    const { context, page, pageErrors } = await openDayCharts({ viewport: { width: 390, height: 844 }, hasTouch: true });
    const session = await context.newCDPSession(page);
    const pressure = page.getByRole('figure', { name: /^Air pressure \(Pa\)/ });
    const plot = pressure.locator('.u-over');
    await plot.evaluate((element) => element.scrollIntoView({ block: 'center' }));
    const scrolledBefore = Number(await page.evaluate('scrollY'));

    // A vertical swipe on the chart scrolls the page and zooms nothing.
    let box = (await plot.boundingBox())!;
    const middleX = box.x + box.width / 2;
    await touch(session, [
      [
        { x: middleX, y: box.y + box.height * 0.8 },
        { x: middleX, y: box.y + box.height * 0.1 },
      ],
    ]);
    await page.waitForFunction(`scrollY > ${scrolledBefore}`);
    assert.equal(await pressure.getAttribute('data-zoom'), null);

    // One finger sideways across the middle: zoomed to about that part of the day.
    box = (await plot.boundingBox())!;
    const y = box.y + box.height / 2;
    await touch(session, [
      [
        { x: box.x + box.width * 0.3, y },
        { x: box.x + box.width * 0.7, y },
      ],
    ]);
    const reset = pressure.getByRole('button', { name: 'Reset zoom' });
    await reset.waitFor();
    const dragged = await zoomOf(pressure);
    const day = 86_400;
    assert.ok(dragged.to - dragged.from > day * 0.3 && dragged.to - dragged.from < day * 0.5, `drag zoom ${dragged.from}..${dragged.to}`);
    await reset.tap();
    await reset.waitFor({ state: 'detached' });
    assert.equal(await pressure.getAttribute('data-zoom'), null);

    // Two fingers spread from 40-60 % to 20-80 % of the width: a window a third as wide, about the middle.
    box = (await plot.boundingBox())!;
    await touch(session, [
      [
        { x: box.x + box.width * 0.4, y },
        { x: box.x + box.width * 0.2, y },
      ],
      [
        { x: box.x + box.width * 0.6, y },
        { x: box.x + box.width * 0.8, y },
      ],
    ]);
    await reset.waitFor();
    const pinched = await zoomOf(pressure);
    assert.ok(
      pinched.to - pinched.from > day * 0.25 && pinched.to - pinched.from < day * 0.45,
      `pinch zoom ${pinched.from}..${pinched.to}`,
    );
    assert.deepEqual(await seriousAccessibilityViolations(page), []);
    await reset.tap();
    await reset.waitFor({ state: 'detached' });
    assert.deepEqual(pageErrors, []);
    await context.close();
  });
});
