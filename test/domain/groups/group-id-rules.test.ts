import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { AppError } from '../../../src/domain/errors.js';
import { checkGroupDescription, checkGroupId, requireGroupRef } from '../../../src/domain/groups/group-id-rules.js';

const valid = [
  'north',
  'North',
  'a',
  'a'.repeat(64),
  'é'.repeat(64),
  '😀'.repeat(64),
  'site-7_b.c:d',
  'ryhmä',
  '北区',
  '$sys',
  '...',
  '.a',
  'unassigned-2',
  'xunassigned',
];

const invalid: [string, unknown][] = [
  ['empty', ''],
  ['65 characters', 'a'.repeat(65)],
  ['65 astral characters', '😀'.repeat(65)],
  ['space', 'north east'],
  ['leading space', ' north'],
  ['tab', 'north\teast'],
  ['line feed', 'north\n'],
  ['carriage return', 'north\r'],
  ['vertical tab', 'a\vb'],
  ['form feed', 'a\fb'],
  ['NEL (U+0085)', 'a\u0085b'],
  ['NBSP (U+00A0)', 'a\u00a0b'],
  ['ogham space (U+1680)', 'a\u1680b'],
  ['en quad (U+2000)', 'a\u2000b'],
  ['hair space (U+200A)', 'a\u200ab'],
  ['line separator (U+2028)', 'a\u2028b'],
  ['paragraph separator (U+2029)', 'a\u2029b'],
  ['narrow NBSP (U+202F)', 'a\u202fb'],
  ['medium math space (U+205F)', 'a\u205fb'],
  ['ideographic space (U+3000)', 'a\u3000b'],
  ['zero-width space (U+200B)', 'a\u200bb'],
  ['zero-width joiner (U+200D)', 'a\u200db'],
  ['BOM (U+FEFF)', '\ufeffnorth'],
  ['right-to-left override (U+202E)', 'a\u202eb'],
  ['NUL', 'a\u0000b'],
  ['escape', 'a\u001bb'],
  ['DEL', 'a\u007fb'],
  ['C1 control (U+009B)', 'a\u009bb'],
  ['lone surrogate', 'a\ud800b'],
  ['slash', 'north/east'],
  ['plus', 'north+'],
  ['hash', '#north'],
  ['dot', '.'],
  ['dot dot', '..'],
  ['unassigned', 'unassigned'],
  ['UNASSIGNED', 'UNASSIGNED'],
  ['Unassigned', 'Unassigned'],
  ['a number', 42],
  ['null', null],
  ['undefined', undefined],
];

describe('group id rule', () => {
  for (const id of valid) {
    test(`accepts ${JSON.stringify(id).slice(0, 40)}`, () => assert.equal(checkGroupId('group_id', id), undefined));
  }
  for (const [name, id] of invalid) {
    test(`refuses ${name}, naming the field`, () => {
      const problem = checkGroupId('group_id', id);
      assert.ok(problem, 'expected a problem');
      assert.equal(problem.field, 'group_id');
    });
  }

  test('a group reference accepts exactly `unassigned` as the pseudo-group, and nothing else reserved', () => {
    assert.equal(requireGroupRef('group_id', 'unassigned'), null);
    assert.equal(requireGroupRef('group_id', 'north'), 'north');
    for (const id of ['UNASSIGNED', 'Unassigned', 'a b', '']) {
      assert.throws(
        () => requireGroupRef('group_id', id),
        (e: unknown) => e instanceof AppError && e.code === 'VALIDATION_FAILED' && e.errors[0]?.field === 'group_id',
      );
    }
  });
});

describe('group description rule', () => {
  const ok: unknown[] = [
    undefined,
    null,
    '',
    'x'.repeat(1024),
    '😀'.repeat(1024),
    'two\nlines\twith tabs\r\n',
    'spaces and NBSP\u00a0are text',
  ];
  const bad: [string, unknown][] = [
    ['1025 characters', 'x'.repeat(1025)],
    ['NUL', 'a\u0000b'],
    ['escape', 'a\u001b[31m'],
    ['lone surrogate', '\udc00'],
    ['a number', 7],
  ];
  for (const value of ok)
    test(`accepts ${JSON.stringify(value)?.slice(0, 30)}`, () =>
      assert.equal(checkGroupDescription('group_description', value), undefined));
  for (const [name, value] of bad)
    test(`refuses ${name}`, () => assert.equal(checkGroupDescription('group_description', value)?.field, 'group_description'));
});
