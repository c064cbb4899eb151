/** Strings, numbers and JSON values of the wrong kind: the raw material every fuzz generator draws from. */
import fc from 'fast-check';

/** Strings that have broken parsers, query builders and templates elsewhere. */
export const injectionStrings: readonly string[] = [
  "' OR 1=1--",
  "' OR '1'='1",
  '"; DROP TABLE things;--',
  '1; DELETE FROM groups; --',
  "x' UNION SELECT * FROM users --",
  '../../etc/passwd',
  '..\\..\\windows\\win.ini',
  '..%2F..%2Fetc%2Fpasswd',
  '${7*7}',
  '{{7*7}}',
  '#{7*7}',
  '<%= 7*7 %>',
  '{"$ne":null}',
  '{"$gt":""}',
  '<script>alert(1)</script>',
  '%00',
  '%s%s%s%n',
  '__proto__',
  'constructor',
  'prototype',
  'hasOwnProperty',
  'toString',
  'null',
  'undefined',
  'NaN',
  'true',
  '[]',
  '{}',
  'unassigned',
  'UNASSIGNED',
  'Unassigned',
  '%',
  '%zz',
  '\\',
  '/',
  '+',
  '#',
  '*',
  '?',
  '&',
  '=',
  ' ',
  '',
  'a b',
  '\t',
  '\r\n',
  'thingdesk/acme/up/+',
];

/** Unicode that trips encoders, comparisons and storage: lone surrogates, NUL, direction marks, emoji, odd cases. */
export const unicodeJunk: readonly string[] = [
  '\uD800',
  '\uDC00',
  'a\uD83D',
  '\uDE00b',
  '\u0000',
  'a\u0000b',
  '\u202Eevil\u202C',
  '\u200B',
  '\uFEFF',
  '😀',
  '👨‍👩‍👧‍👦',
  'e\u0301',
  'İ',
  'ß',
  'ﬃ',
  '\u0085',
  '\u2028\u2029',
  '\uFFFF',
  '\uFFFE',
  'ｕｎａｓｓｉｇｎｅｄ',
  'unassıgned',
  '\u001B[31m',
  '\u007F',
  'Ω≈ç√∫',
  '表ポあA鷗ŒéＢ逍Üßªąñ丂㐀𠀀',
];

/** Numbers as text: what a query string or raw JSON may carry (huge, negative, NaN-ish, non-ASCII digits). */
export const numberTexts: readonly string[] = [
  '0',
  '-0',
  '-1',
  '1',
  '1.5',
  '1e3',
  '1e309',
  '-1e309',
  '1e-400',
  '9007199254740993',
  '123456789012345678901234567890',
  '2147483647',
  '2147483648',
  '-2147483649',
  '4294967296',
  '0x10',
  '0b1',
  '0o7',
  'NaN',
  'Infinity',
  '-Infinity',
  ' 1',
  '1 ',
  '+1',
  '01',
  '1_000',
  '١',
  '１',
  '',
  '1,2',
  '10001',
  '1001',
];

/** Any UTF-16 code unit, lone surrogates and NUL included. */
export const anyCodeUnit = fc.nat({ max: 0xffff }).map((code) => String.fromCharCode(code));

export const longString = fc.oneof(
  fc.constantFrom(64, 65, 128, 129, 256, 257, 1024, 1025, 5000).map((length) => 'x'.repeat(length)),
  fc.string({ minLength: 200, maxLength: 2000, unit: 'grapheme' }),
);

/** A string from anywhere: injections, junk unicode, random text, long text, numbers as text. */
export const nastyString: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(...injectionStrings) },
  { weight: 2, arbitrary: fc.constantFrom(...unicodeJunk) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20, unit: 'grapheme' }) },
  { weight: 2, arbitrary: fc.string({ maxLength: 20, unit: anyCodeUnit }) },
  { weight: 1, arbitrary: longString },
  { weight: 2, arbitrary: fc.constantFrom(...numberTexts) },
  { weight: 2, arbitrary: fc.stringMatching(/^[A-Za-z0-9._:-]{1,70}$/) },
);

/** A string chosen mostly from `pool` (known ids, so requests reach the domain), else anything nasty. */
export function poolOrNasty(pool: readonly string[]): fc.Arbitrary<string> {
  return fc.oneof({ weight: 2, arbitrary: fc.constantFrom(...pool) }, { weight: 3, arbitrary: nastyString });
}

/** Numbers that are not what a field wants: huge, negative, fractional, unsafe. (NaN and Infinity become null in JSON.) */
export const nastyNumber: fc.Arbitrary<number> = fc.oneof(
  fc.constantFrom(
    0,
    -0,
    -1,
    1.5,
    2 ** 31,
    2 ** 31 - 1,
    -(2 ** 31) - 1,
    2 ** 53 + 2,
    Number.MAX_SAFE_INTEGER,
    Number.MAX_VALUE,
    Number.MIN_VALUE,
    -Number.MAX_VALUE,
    1e21,
    NaN,
    Infinity,
  ),
  fc.integer(),
  fc.double(),
);

/** A JSON value of any type: the wrong one for nearly every field. */
export const anyJsonValue: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom(null, true, false, 0, '', [], {}) },
  { weight: 2, arbitrary: nastyString },
  { weight: 2, arbitrary: nastyNumber },
  { weight: 2, arbitrary: fc.jsonValue({ maxDepth: 3 }) },
  { weight: 1, arbitrary: fc.array(nastyString, { maxLength: 5 }) },
  { weight: 1, arbitrary: fc.dictionary(nastyString, nastyString, { maxKeys: 4 }) },
);
