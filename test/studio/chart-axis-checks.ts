import assert from 'node:assert/strict';
import type { Page } from 'playwright-core';

/** A value axis label as a number ("101,325" -> 101325). */
export const labelValue = (label: string) => Number(label.replace(/,/g, ''));

/**
 * The chart of `field` draws `points` (what the API answered), and its value axis is readable: at least two labels,
 * each around the data (uPlot pads the range a little) and at the data's scale, on an axis at least as wide as its
 * longest label needs (about 6 px a character at 12 px).
 */
export async function checkValueAxis(
  page: Page,
  field: string,
  points: readonly { min: number; max: number }[],
  scale: { atLeast: number; below: number },
): Promise<void> {
  const low = Math.min(...points.map((p) => p.min));
  const high = Math.max(...points.map((p) => p.max));
  const figure = page.locator(`figure[data-field="${field}"]`);
  assert.equal(Number(await figure.getAttribute('data-points')), points.length);
  const labels = ((await figure.getAttribute('data-value-labels')) ?? '').split(' | ').filter(Boolean);
  assert.ok(labels.length >= 2, `${field}: labels ${labels.join(', ')}`);
  const span = high - low;
  for (const label of labels) {
    const value = labelValue(label);
    assert.ok(Number.isFinite(value), `${field}: label ${label}`);
    assert.ok(value >= low - span && value <= high + span, `${field}: label ${label} outside ${low}..${high}`);
    assert.ok(value >= scale.atLeast && value < scale.below, `${field}: label ${label} not at the data's scale`);
  }
  const width = Number(await figure.getAttribute('data-value-axis-width'));
  assert.ok(width >= Math.max(...labels.map((label) => label.length)) * 5, `${field}: axis ${width} px for ${labels.join(', ')}`);
}
