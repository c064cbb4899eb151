/**
 * The one-pass check behind strict JSON bodies (src/http/json-body.ts): repeated keys and numbers beyond ±(2^53 - 1),
 * as a table, and its cost on the largest bodies the server reads (1 MiB) shaped to be expensive.
 */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { charsetOf, checkJsonText } from '../../src/http/json-body.js';

/** text, route body name, expected code and fields (none: accepted). */
const table: [string, string, string | undefined, string[]][] = [
  ['{"a":1,"b":2}', '', undefined, []],
  ['{"a":1,"a":1}', '', 'MALFORMED_JSON', ['a']],
  ['{"ab":1,"a\\u0062":2}', '', 'MALFORMED_JSON', ['ab']],
  ['{"a\\\\":1,"a\\\\":2}', '', 'MALFORMED_JSON', ['a\\']],
  ['{"q\\"":1,"q\\"":2}', '', 'MALFORMED_JSON', ['q"']],
  ['{"a":1,"b":1,"a":2,"b":2}', '', 'MALFORMED_JSON', ['a', 'b']],
  ['{"x":"\\\\","y":"\\"}{\\"x\\":"}', '', undefined, []],
  ['{"a":{"a":1},"b":{"a":2}}', '', undefined, []],
  ['[{"a":1},{"a":1}]', '', undefined, []],
  ['{"a":[{"b":1},{"b":1,"c":[],"b":2}]}', '', 'MALFORMED_JSON', ['a[1].b']],
  ['[{"tsmId":1,"k":{"k":1,"k":2}}]', 'commands', 'MALFORMED_JSON', ['commands[0].k.k']],
  ['{"":1,"":2}', '', 'MALFORMED_JSON', ['""']],
  ['{"n":9007199254740991,"m":-9007199254740991,"f":0.1234567890123456789,"e":1e15,"z":-0.0}', '', undefined, []],
  ['{"n":9007199254740992}', '', 'VALIDATION_FAILED', ['n']],
  ['{"n":[1,2,-1E16]}', '', 'VALIDATION_FAILED', ['n[2]']],
  ['[1,99999999999999999999]', '', 'VALIDATION_FAILED', ['body[1]']],
  ['[1,99999999999999999999]', 'commands', 'VALIDATION_FAILED', ['commands[1]']],
  ['1e400', '', 'VALIDATION_FAILED', ['body']],
  ['"99999999999999999999"', '', undefined, []],
  ['{"99999999999999999999":1}', '', undefined, []],
];

describe('checkJsonText', () => {
  for (const [text, bodyName, code, fields] of table) {
    test(`${text} ${code ?? 'accepted'}`, () => {
      JSON.parse(text); // every case is JSON the parser accepts
      const problem = checkJsonText(text, bodyName);
      assert.equal(problem?.code, code);
      assert.deepEqual(problem?.errors.map((e) => e.field) ?? [], fields);
    });
  }

  test('1 MiB bodies built to be costly are checked in linear time', () => {
    const MiB = 1024 * 1024;
    const manyKeys = `{${Array.from({ length: 70_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    const manyObjects = `[${'{"a":1,"b":2},'.repeat(MiB / 14)}{}]`;
    const deep = `${'['.repeat(MiB / 2 - 1)}${']'.repeat(MiB / 2 - 1)}`;
    const backslashes = `{"s":"${'\\\\'.repeat(MiB / 2 - 8)}"}`;
    const escapedKeys = `{${Array.from({ length: 40_000 }, (_, i) => `"\\u006b${i}":1`).join(',')}}`;
    const longNumbers = `[${Array.from({ length: 50_000 }, () => '0.12345678901234567').join(',')}]`;
    for (const [what, text] of Object.entries({ manyKeys, manyObjects, deep, backslashes, escapedKeys, longNumbers })) {
      assert.ok(text.length <= MiB + 16, `${what} is ${text.length} characters`);
      // CPU time, not wall time: a busy machine stretches the second, never the first (a quadratic check takes seconds).
      const started = process.cpuUsage();
      assert.equal(checkJsonText(text), undefined, what);
      const { user, system } = process.cpuUsage(started);
      const ms = (user + system) / 1000;
      assert.ok(ms < 1000, `${what} took ${ms.toFixed(0)} ms of CPU`);
    }
  });
});

test('charsetOf reads the charset parameter of a Content-Type', () => {
  assert.equal(charsetOf('application/json'), undefined);
  assert.equal(charsetOf(undefined), undefined);
  assert.equal(charsetOf('application/json; charset=UTF-8'), 'utf-8');
  assert.equal(charsetOf('application/json;charset="latin1"'), 'latin1');
  assert.equal(charsetOf('application/json; foo=bar; Charset = utf-16 '), 'utf-16');
});
