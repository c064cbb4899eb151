/** The command rules beyond the catalog, as tables: batch shape, destination, reserved fields, stamping, answers. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  answerTransactionId,
  answeredStatus,
  checkCommands,
  chooseAnsweredCommand,
  commandsPerRequest,
  stampCommands,
} from '../../../src/domain/commands/command-rules.js';

const interval = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };

describe('checkCommands', () => {
  const cases: { name: string; body: unknown; fields: string[] }[] = [
    { name: 'one valid command', body: [interval], fields: [] },
    { name: `${commandsPerRequest.max} valid commands`, body: Array.from({ length: commandsPerRequest.max }, () => interval), fields: [] },
    { name: 'not an array', body: interval, fields: ['commands'] },
    { name: 'null', body: null, fields: ['commands'] },
    { name: 'an empty array', body: [], fields: ['commands'] },
    {
      name: `${commandsPerRequest.max + 1} commands`,
      body: Array.from({ length: commandsPerRequest.max + 1 }, () => interval),
      fields: ['commands'],
    },
    { name: 'an element that is not an object', body: [interval, 5], fields: ['commands[1]'] },
    { name: 'an id the endpoint does not take', body: [{ ...interval, tsmId: 1502 }], fields: ['commands[0].tsmId'] },
    {
      name: 'a bad field in the third command',
      body: [interval, interval, { ...interval, reportInterval: 0 }],
      fields: ['commands[2].reportInterval'],
    },
    { name: 'the matching destination', body: [{ ...interval, tsmDstTuid: 'T-1' }], fields: [] },
    { name: 'another destination', body: [{ ...interval, tsmDstTuid: 'T-2' }], fields: ['commands[0].tsmDstTuid'] },
    { name: 'a destination that is not a string', body: [{ ...interval, tsmDstTuid: 5 }], fields: ['commands[0].tsmDstTuid'] },
    { name: 'a 13200 with free fields', body: [{ tsmId: 13200, tsmEv: 30, transactionId: 1, anything: { nested: true } }], fields: [] },
    {
      name: 'a 13200 with a field the history reserves',
      body: [{ tsmId: 13200, tsmEv: 30, transactionId: 1, status: 'x' }],
      fields: ['commands[0].status'],
    },
    {
      name: 'a 1500 with a reserved name, reported once as unknown',
      body: [{ ...interval, response: 1 }],
      fields: ['commands[0].response'],
    },
  ];
  for (const { name, body, fields } of cases) {
    test(name, () => {
      const problems = checkCommands(body, 'T-1');
      assert.deepEqual([...new Set(problems.map((problem) => problem.field))], fields, JSON.stringify(problems));
      if (fields.length === 1) assert.equal(problems.length, 1, JSON.stringify(problems));
      for (const problem of problems) assert.ok(problem.message.startsWith(problem.field), problem.message);
    });
  }
});

describe('stampCommands', () => {
  test('sets tsmTs and tsmDstTuid, overwriting a sent tsmTs, and keeps every other field', () => {
    assert.deepEqual(stampCommands([{ ...interval, tsmTs: 5 }], 'T-1', 1_800_000_000), [
      { ...interval, tsmTs: 1_800_000_000, tsmDstTuid: 'T-1' },
    ]);
  });
});

describe('answers', () => {
  const table: { message: Record<string, unknown>; transactionId: number | undefined; status: string }[] = [
    { message: { tsmId: 1500, tsmEv: 31, transactionId: 77 }, transactionId: 77, status: 'applied' },
    { message: { tsmId: 1102, transactionId: 5 }, transactionId: 5, status: 'unavailable' },
    { message: { tsmId: 1110, batl: 50 }, transactionId: undefined, status: 'applied' },
    { message: { tsmId: 1500, transactionId: '77' }, transactionId: undefined, status: 'applied' },
    { message: { tsmId: 1500, transactionId: 7.5 }, transactionId: undefined, status: 'applied' },
  ];
  for (const { message, transactionId, status } of table) {
    test(`${JSON.stringify(message)}: transactionId ${transactionId}, ${status}`, () => {
      assert.equal(answerTransactionId(message), transactionId);
      assert.equal(answeredStatus(message), status);
    });
  }

  test("the first waiting command with the answer's id wins, else the first (newest request first)", () => {
    const waiting = [
      { tsmId: 1501, n: 1 },
      { tsmId: 1500, n: 2 },
      { tsmId: 1500, n: 3 },
    ];
    assert.equal(chooseAnsweredCommand(waiting, 1500)?.n, 2);
    assert.equal(chooseAnsweredCommand(waiting, 1102)?.n, 1);
    assert.equal(chooseAnsweredCommand([], 1500), undefined);
  });
});
