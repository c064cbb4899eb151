/** What the command endpoint accepts (SPEC section 3), through validateCommand. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { commandTsmIds, exampleMessage, prefixProblems, validateCommand } from '../../src/catalog/index.js';
import { assertProblemOn } from './helpers.js';

describe('validateCommand', () => {
  test('the command ids come from the definitions', () => {
    assert.deepEqual([...commandTsmIds], [1500, 1501, 12200, 13200]);
  });

  for (const tsmId of commandTsmIds) {
    test(`the example of ${tsmId} is a valid command`, () => {
      assert.deepEqual(validateCommand(exampleMessage(tsmId)), []);
    });
    test(`${tsmId} without tsmEv or transactionId is refused`, () => {
      const { tsmEv: _tsmEv, transactionId: _transactionId, ...rest } = exampleMessage(tsmId);
      const problems = validateCommand(rest);
      assertProblemOn(problems, 'tsmEv', 'tsmEv is required');
      assertProblemOn(problems, 'transactionId', 'transactionId is required');
      assert.equal(problems.filter((problem) => problem.field === 'transactionId').length, 1, 'reported once');
    });
  }

  test('an id the endpoint does not accept names the allowed ids', () => {
    assertProblemOn(validateCommand(exampleMessage(1206)), 'tsmId', 'tsmId must be one of 1500, 1501, 12200, 13200');
    assertProblemOn(validateCommand({ tsmEv: 30, transactionId: 1 }), 'tsmId', 'tsmId must be one of 1500, 1501, 12200, 13200');
  });

  test('tsmEv and transactionId must be integers', () => {
    const problems = validateCommand({ tsmId: 1500, tsmEv: '30', transactionId: 1.5 });
    assertProblemOn(problems, 'tsmEv', 'tsmEv must be an integer');
    assertProblemOn(problems, 'transactionId', 'transactionId must be an integer');
  });

  test('the fields follow the downlink rules, unknown fields included', () => {
    const problems = validateCommand({ tsmId: 1501, tsmEv: 30, transactionId: 1, nodeRole: 5, colour: 'red' });
    assertProblemOn(problems, 'nodeRole');
    assertProblemOn(problems, 'colour');
  });

  test('13200 accepts any extra field, but still type-checks the envelope', () => {
    assert.deepEqual(validateCommand({ tsmId: 13200, tsmEv: 30, transactionId: 1, anything: { nested: true } }), []);
    assertProblemOn(validateCommand({ tsmId: 13200, tsmEv: 30, transactionId: 1, tsmTs: 'now' }), 'tsmTs');
  });

  test('tsmTs and tsmDstTuid may be sent and are type-checked', () => {
    const command = { tsmId: 1500, tsmEv: 30, transactionId: 1, tsmTs: 1700000000, tsmDstTuid: 'any-tuid' };
    assert.deepEqual(validateCommand(command), []);
    assertProblemOn(validateCommand({ ...command, tsmDstTuid: 5 }), 'tsmDstTuid');
  });

  test('a 12200 read request is a valid command', () => {
    assert.deepEqual(validateCommand({ tsmId: 12200, tsmEv: 30, transactionId: 4 }), []);
  });

  test('prefixProblems places problems inside a request body', () => {
    const problems = prefixProblems(validateCommand({ tsmId: 1500, tsmEv: 30, transactionId: 1, reportInterval: 0 }), 'commands[2]');
    assert.deepEqual(problems, [
      { field: 'commands[2].reportInterval', message: 'commands[2].reportInterval must be an integer of at least 1' },
    ]);
    assert.deepEqual(prefixProblems(validateCommand('x'), 'commands[0]'), [
      { field: 'commands[0]', message: 'commands[0] must be a JSON object' },
    ]);
  });
});
