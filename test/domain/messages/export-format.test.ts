import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  csvColumns,
  csvField,
  csvHeader,
  csvRecord,
  exportContentDisposition,
  ndjsonRecord,
  neutralizeFormula,
} from '../../../src/domain/messages/export-format.js';

const envelope = ['tsmId', 'tsmEv', 'tsmTs', 'tsmTuid', 'tsmGw', 'tsmDstTuid', 'transactionId', 'deploymentGroupId'];

describe('export columns', () => {
  const cases: [string, number[] | undefined, string[]][] = [
    ['no ids: the envelope and otherFields', undefined, [...envelope, 'otherFields']],
    ['one id: its uplink fields in catalog order', [12100], [...envelope, 'airp', 'humd', 'temp', 'lght', 'otherFields']],
    ['two ids: in the order given', [1110, 12100], [...envelope, 'batl', 'chrg', 'airp', 'humd', 'temp', 'lght', 'otherFields']],
    ['a field two ids share appears once', [12100, 12100], [...envelope, 'airp', 'humd', 'temp', 'lght', 'otherFields']],
    ['an id the catalog does not know adds nothing', [99001], [...envelope, 'otherFields']],
  ];
  for (const [name, ids, expected] of cases) test(name, () => assert.deepEqual(csvColumns(ids), expected));
});

describe('CSV fields (RFC 4180)', () => {
  const cases: [string, string][] = [
    ['plain', 'plain'],
    ['', ''],
    ['a,b', '"a,b"'],
    ['say "hi"', '"say ""hi"""'],
    ['two\nlines', '"two\nlines"'],
    ['cr\r', '"cr\r"'],
    ['ünïcode ✓', 'ünïcode ✓'],
  ];
  for (const [input, expected] of cases) test(JSON.stringify(input), () => assert.equal(csvField(input), expected));
});

describe('CSV records', () => {
  const columns = csvColumns([12100]);
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'catalog fields in their columns, absent ones empty',
      { tsmId: 12100, tsmTs: 1700000000, tsmTuid: 'T-1', temp: 21.5, deploymentGroupId: 'north' },
      '12100,,1700000000,T-1,,,,north,,,21.5,,\r\n',
    ],
    [
      'unknown members in otherFields, in message order, as JSON; nested values as JSON text',
      { tsmId: 12100, tsmTuid: 'T-1', zeta: 'a,b', alpha: { x: [1, null] }, deploymentGroupId: 'north' },
      '12100,,,T-1,,,,north,,,,,"{""zeta"":""a,b"",""alpha"":{""x"":[1,null]}}"\r\n',
    ],
    [
      'null, booleans and strings that need quoting',
      { tsmId: 12100, tsmGw: 'G "1"', temp: null, humd: true, deploymentGroupId: 'unassigned' },
      '12100,,,,"G ""1""",,,unassigned,,true,null,,\r\n',
    ],
    ['a member named otherFields is kept inside otherFields', { tsmId: 1, otherFields: 2 }, '1,,,,,,,,,,,,"{""otherFields"":2}"\r\n'],
  ];
  for (const [name, message, expected] of cases) test(name, () => assert.equal(csvRecord(columns, JSON.stringify(message)), expected));

  test('the header quotes like any record', () => assert.equal(csvHeader(['a', 'b,c']), 'a,"b,c"\r\n'));
  test('NDJSON is the served text and a newline', () => assert.equal(ndjsonRecord('{"a":1}'), '{"a":1}\n'));
});

describe('formula neutralization (OWASP CSV injection)', () => {
  const cases: [string, string][] = [
    ['=1+1', "'=1+1"],
    ['+1', "'+1"],
    ['-3.5', "'-3.5"],
    ['@SUM(1)', "'@SUM(1)"],
    ['\t=1', "'\t=1"],
    ['\r=1', "'\r=1"],
    ['', ''],
    ['1.4.2', '1.4.2'],
    ['a=b', 'a=b'],
    [' =1', ' =1'],
    ["'=1", "'=1"],
  ];
  for (const [input, expected] of cases) test(JSON.stringify(input), () => assert.equal(neutralizeFormula(input), expected));

  const columns = csvColumns([12100]);
  const message = JSON.stringify({ tsmId: 12100, tsmGw: '@gw', temp: -3.5, humd: '-3.5', note: '=x' });
  test('by JSON type: a number stays, a string is text; otherFields is a JSON object, never a formula', () =>
    assert.equal(csvRecord(columns, message), '12100,,,,\'@gw,,,,,\'-3.5,-3.5,,"{""note"":""=x""}"\r\n'));
  test('raw: as sent', () =>
    assert.equal(csvRecord(columns, message, { raw: true }), '12100,,,,@gw,,,,,-3.5,-3.5,,"{""note"":""=x""}"\r\n'));
});

describe('Content-Disposition', () => {
  const cases: [string, 'thing' | 'group', string, 'csv' | 'ndjson', string][] = [
    ['an ASCII TUID', 'thing', 'T-1', 'csv', `attachment; filename="thing-T-1-messages.csv"; filename*=UTF-8''thing-T-1-messages.csv`],
    [
      'a TUID with a colon',
      'thing',
      'a:b',
      'ndjson',
      `attachment; filename="thing-a_b-messages.ndjson"; filename*=UTF-8''thing-a%3Ab-messages.ndjson`,
    ],
    [
      'a group id with quotes, apostrophes and stars',
      'group',
      `it's "*"`,
      'csv',
      `attachment; filename="group-it_s____-messages.csv"; filename*=UTF-8''group-it%27s%20%22%2A%22-messages.csv`,
    ],
  ];
  for (const [name, subject, id, format, expected] of cases)
    test(name, () => assert.equal(exportContentDisposition(subject, id, format), expected));
});
