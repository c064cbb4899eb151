/**
 * RuleThresholdIndex: the rules a value needs looked at are exactly those whose condition holds (and the `ne` rules,
 * which hold for all values but one), plus the active ones named, in rule order, each once. Checked against every
 * rule compared one by one, on random rule sets with repeated thresholds and values on and beside them.
 */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import fc from 'fast-check';
import { compare } from '../../../src/domain/rules/rule-conditions.js';
import { RuleThresholdIndex } from '../../../src/domain/rules/rule-threshold-index.js';
import type { RuleOp } from '../../../src/domain/rules/rule-types.js';

const ops: RuleOp[] = ['gt', 'gte', 'lt', 'lte', 'eq', 'ne'];

test('candidates are the holding rules, the ne rules and the named active ones, ascending and once each', () => {
  const rule = fc.record({ op: fc.constantFrom(...ops), threshold: fc.integer({ min: -5, max: 5 }) });
  fc.assert(
    fc.property(
      fc.array(rule, { maxLength: 40 }),
      fc.oneof(fc.integer({ min: -7, max: 7 }), fc.double({ min: -7, max: 7, noNaN: true })),
      fc.array(fc.nat({ max: 50 }), { maxLength: 6 }),
      (specs, value, activeNumbers) => {
        const rules = specs.map((s, i) => ({ id: `r${i}`, ...s }));
        const index = new RuleThresholdIndex(rules);
        // Ids past the list stand for other fields' rules: ignored.
        const active = activeNumbers.map((n) => `r${n}`);
        const expected = rules
          .map((r, position) => ({ r, position }))
          .filter(({ r }) => r.op === 'ne' || compare(value, r.op, r.threshold) || active.includes(r.id))
          .map(({ position }) => position);
        assert.deepEqual(index.candidates(value, new Set(active.slice(0, 3)), active.slice(3)), expected);
      },
    ),
    { numRuns: 2000 },
  );
});

test('no rule holding and none active: nothing to look at, whatever the number of rules', () => {
  const rules = Array.from({ length: 100 }, (_, i) => ({
    id: `r${i}`,
    op: (i % 2 === 0 ? 'gt' : 'lt') as RuleOp,
    threshold: i % 2 === 0 ? 1000 + i : -1000 - i,
  }));
  const index = new RuleThresholdIndex(rules);
  assert.deepEqual(index.candidates(20, undefined, new Set()), []);
  assert.deepEqual(index.candidates(1003.5), [0, 2]);
  assert.deepEqual(index.candidates(20, new Set(['r7', 'elsewhere'])), [7]);
});
