/** Small helpers shared by the catalog tests. */
import assert from 'node:assert/strict';
import type { Problem } from '../../src/catalog/index.js';

/** Asserts a problem names `field`, optionally with exactly this message. */
export function assertProblemOn(problems: readonly Problem[], field: string, message?: string): void {
  const found = problems.find((problem) => problem.field === field);
  assert.ok(found, `expected a problem on "${field}", got ${JSON.stringify(problems)}`);
  if (message !== undefined) assert.equal(found.message, message);
}

/** Asserts no problem names `field`. */
export function assertNoProblemOn(problems: readonly Problem[], field: string): void {
  const found = problems.find((problem) => problem.field === field);
  assert.equal(found, undefined, `expected no problem on "${field}", got ${JSON.stringify(found)}`);
}
