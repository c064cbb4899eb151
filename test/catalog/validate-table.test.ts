/**
 * Table-driven over the definitions: every form of every id has a passing example, and every rule
 * of every field has a violating case that must be reported with that field's path.
 */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { exampleMessage, validateDownlink, validateUplink } from '../../src/catalog/index.js';
import type { Problem } from '../../src/catalog/index.js';
import { messageForms, violationsOf } from './violations.js';

/** Problems the form's validator reports: downlink problems, or uplink warnings (errors must be none). */
function problemsOf(direction: 'uplink' | 'downlink', message: unknown): readonly Problem[] {
  if (direction === 'downlink') return validateDownlink(message);
  const { errors, warnings } = validateUplink(message);
  assert.deepEqual(errors, [], 'an uplink with a readable envelope must not be an error');
  return warnings;
}

for (const form of messageForms()) {
  describe(`message ${form.label} (${form.direction})`, () => {
    test('its example is valid', () => {
      assert.deepEqual(problemsOf(form.direction, exampleMessage(form.tsmId, form.variant)), []);
    });

    for (const violation of violationsOf(form)) {
      test(`reports ${violation.description}`, () => {
        const problems = problemsOf(form.direction, violation.message);
        assert.ok(
          problems.some((problem) => problem.field === violation.path && problem.message.startsWith(violation.path)),
          `expected a problem on ${violation.path}, got ${JSON.stringify(problems)}`,
        );
      });
    }

    test('an unknown field is rejected on a downlink, ignored on an uplink', () => {
      const message = { ...exampleMessage(form.tsmId, form.variant), notACatalogField: 1 };
      const problems = problemsOf(form.direction, message);
      const flagged = problems.some((problem) => problem.field === 'notACatalogField');
      assert.equal(flagged, form.direction === 'downlink' && !form.openPayload);
    });
  });
}
