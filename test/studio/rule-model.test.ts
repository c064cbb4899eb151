/** The alert rules page's model: which catalog messages and numeric fields the form offers, and the typed text as a rule. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageDefinitions } from '../../src/catalog/index.js';
import {
  conditionText,
  emptyDraft,
  numericFields,
  scopeText,
  toInput,
  uplinkMessages,
  type CatalogMessage,
} from '../../studio/src/pages/rules/rule-model.js';

const catalog = messageDefinitions as unknown as CatalogMessage[];
const byId = (tsmId: number) => catalog.find((entry) => entry.tsmId === tsmId);

describe('alert rule form model', () => {
  test('offers the messages a device sends, by id, and no downlink-only one', () => {
    const offered = uplinkMessages(catalog);
    assert.ok(offered.some((entry) => entry.tsmId === 12100));
    assert.ok(offered.every((entry) => entry.direction !== 'downlink'));
    assert.ok(
      catalog.some((entry) => entry.direction === 'downlink'),
      'the catalog has downlink-only ids to leave out',
    );
    assert.deepEqual(
      offered.map((entry) => entry.tsmId),
      [...offered.map((entry) => entry.tsmId)].sort((a, b) => a - b),
    );
  });

  test("a message's numeric fields, with unit; of a message with variants, the uplink variant's only", () => {
    const weather = numericFields(byId(12100)).map((field) => field.path);
    assert.deepEqual(weather, ['airp', 'humd', 'temp', 'lght']);
    assert.match(numericFields(byId(12100)).find((field) => field.path === 'temp')!.label, /°C/);
    const withVariants: CatalogMessage = {
      tsmId: 2,
      name: 'asked and answered',
      direction: 'both',
      fields: [],
      variants: [
        { direction: 'downlink', fields: [{ name: 'setpoint', type: 'Number' }] },
        { direction: 'uplink', fields: [{ name: 'result', type: 'Number' }] },
      ],
    };
    assert.deepEqual(
      numericFields(withVariants).map((field) => field.path),
      ['result'],
    );
    assert.deepEqual(numericFields(undefined), []);
  });

  test('nested objects become dotted paths; strings and arrays are not offered', () => {
    const entry: CatalogMessage = {
      tsmId: 1,
      name: 'nested',
      direction: 'uplink',
      fields: [
        {
          name: 'env',
          type: 'Object',
          fields: [
            { name: 'temp', type: 'Number', unit: '°C' },
            { name: 'label', type: 'String' },
          ],
        },
        { name: 'list', type: 'Array' },
        { name: 'batl', type: 'Number' },
      ],
    };
    assert.deepEqual(
      numericFields(entry).map((field) => field.path),
      ['env.temp', 'batl'],
    );
  });

  test('the typed text as the mutation input; text that is not a number is named, never sent as another value', () => {
    const draft = {
      ...emptyDraft(),
      name: 'hot',
      tsmId: '12100',
      field: ' temp ',
      threshold: '30',
      clearThreshold: '',
      tuids: 'A-1, B-2 A-1',
    };
    const { input, unreadable } = toInput(draft);
    assert.deepEqual(unreadable, []);
    assert.deepEqual(input, {
      name: 'hot',
      tsmId: 12100,
      field: 'temp',
      op: 'gt',
      threshold: 30,
      clearThreshold: null,
      forS: 0,
      scope: { groupIds: null, tuids: ['A-1', 'B-2', 'A-1'] },
      severity: 'warning',
      enabled: true,
    });
    const bad = toInput({ ...draft, threshold: '3O', clearThreshold: 'x', forS: '1.5e' });
    assert.deepEqual(
      bad.unreadable.map((problem) => problem.field),
      ['threshold', 'clearThreshold', 'forS'],
    );
  });

  test('a condition and a scope in words', () => {
    assert.equal(conditionText({ field: 'env.temp', op: 'gte', threshold: 8 }), 'env.temp ≥ 8');
    assert.equal(scopeText({ groupIds: null, tuids: null }), 'every thing');
    assert.equal(scopeText({ groupIds: ['freezers'], tuids: ['A', 'B', 'C', 'D'] }), 'group freezers; 4 things');
  });
});
