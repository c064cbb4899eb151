/** The commands panel's form model: the catalog's entries as the form offers them and the typed text as a command. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { messageDefinitions, validateCommand } from '../../src/catalog/index.js';
import {
  FormInputError,
  buildCommand,
  commandEntries,
  fieldValue,
  formFieldOf,
  initialValues,
  newTransactionId,
  valueKey,
  type CatalogEntry,
} from '../../studio/src/components/commands/command-form-model.js';

// The catalog exactly as the GraphQL `catalog` query serves it (JSON).
const catalog = JSON.parse(JSON.stringify(messageDefinitions)) as CatalogEntry[];
const entry = (tsmId: number) => commandEntries(catalog).find((candidate) => candidate.tsmId === tsmId)!;

describe('command form model', () => {
  test('offers exactly the ids the command endpoint accepts, by id', () => {
    const expected = messageDefinitions
      .filter((definition) => definition.commandEndpoint)
      .map((definition) => definition.tsmId)
      .sort((a, b) => a - b);
    assert.deepEqual(
      commandEntries(catalog).map((candidate) => candidate.tsmId),
      expected,
    );
  });

  test('the initial values of 12200 and a chosen value set give a command the catalog accepts', () => {
    const environment = entry(12200);
    const values: Record<string, unknown> = initialValues(environment);
    assert.match(String(values['transactionId']), /^\d+$/);
    assert.equal(values['hallMode'], '', 'no default in the catalog: not sent unless chosen');
    values['hallMode'] = valueKey(-1);
    const command = buildCommand(environment, '30', values, '');
    assert.deepEqual(command, { tsmId: 12200, tsmEv: 30, transactionId: Number(values['transactionId']), hallMode: -1 });
    assert.deepEqual(validateCommand(command), []);
  });

  test('numbers from bound inputs stay numbers; text that is no number is sent as typed, for the platform to name', () => {
    const interval = entry(1500);
    const field = interval.fields.find((candidate) => candidate.name === 'reportInterval')!;
    assert.equal(fieldValue(field, 600), 600);
    assert.equal(fieldValue(field, '600'), 600);
    assert.equal(fieldValue(field, null), undefined);
    assert.equal(fieldValue(field, ''), undefined);
    assert.equal(fieldValue(field, 'soon'), 'soon');
    const command = buildCommand(interval, '', { transactionId: 5, reportInterval: 0 }, '');
    assert.equal('tsmEv' in command, false, 'an empty event is left out: the platform names it');
    const named = validateCommand(command).map((problem) => problem.field);
    assert.ok(named.includes('tsmEv') && named.includes('reportInterval'), named.join());
  });

  test("13200's free fields come from a JSON object; anything else is refused on its input", () => {
    const open = entry(13200);
    const values = initialValues(open);
    assert.match(String(values['transactionId']), /^\d+$/, 'the envelope field every command needs has an input');
    assert.deepEqual(buildCommand(open, 30, { ...values, transactionId: '7' }, '{"mode": 2, "tsmId": 1}'), {
      tsmId: 13200,
      tsmEv: 30,
      transactionId: 7,
      mode: 2,
    });
    assert.deepEqual(validateCommand(buildCommand(open, 30, values, '{"mode": 2}')), []);
    for (const extra of ['[1]', 'mode=2', '"x"'])
      assert.throws(
        () => buildCommand(open, 30, values, extra),
        (error: unknown) => error instanceof FormInputError,
      );
  });

  test("the platform's field paths map to the form's inputs", () => {
    assert.equal(formFieldOf('commands[0].reportInterval'), 'reportInterval');
    assert.equal(formFieldOf('commands[0].values[2]'), 'values');
    assert.equal(formFieldOf('commands[0]'), '');
    assert.equal(formFieldOf('commands'), undefined);
  });

  test('each transactionId is new, even within one second', () => {
    const first = newTransactionId(1_800_000_000_000);
    const second = newTransactionId(1_800_000_000_000);
    assert.ok(second > first);
  });
});
