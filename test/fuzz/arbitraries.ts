import fc from 'fast-check';

/**
 * Shared generators and settings of the fuzz suites (issue 8). Every property runs with a fixed seed and a
 * bounded number of runs, so CI stays deterministic and fast; `FUZZ_LONG=1` runs many more cases and
 * `FUZZ_SEED=<n>` explores another part of the input space (a failure prints the seed and path to replay it).
 */
export const fuzzSeed = Number(process.env.FUZZ_SEED ?? 42);

/** Runs per property: small in CI, large behind FUZZ_LONG. The one knob of every fuzz file. */
export const numRuns = process.env.FUZZ_LONG ? 2000 : 50;

/** The fast-check parameters every fuzz property uses. */
export function fuzzParameters(runs: number = numRuns): fc.Parameters<unknown> {
  return { seed: fuzzSeed, numRuns: runs, endOnFailure: true };
}

/**
 * `fc.assert` with the fuzz parameters, failing with the whole report: counterexample, seed and path to replay,
 * and the error the property threw (the test runner would otherwise show only the first line).
 */
export async function assertProperty<T>(property: fc.IAsyncPropertyWithHooks<T>, runs: number = numRuns): Promise<void> {
  const details = await fc.check(property, fuzzParameters(runs) as fc.Parameters<T>);
  if (!details.failed) return;
  // Counterexamples may hold 1 MiB bodies: cut the report, keep the error whole.
  const report = fc.defaultReportMessage(details) ?? '';
  const cause = details.errorInstance instanceof Error ? details.errorInstance.message : String(details.errorInstance);
  throw new Error(`${report.length > 4000 ? `${report.slice(0, 4000)}…[cut]` : report}\nGot error: ${cause.slice(0, 4000)}`);
}

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
const anyCodeUnit = fc.nat({ max: 0xffff }).map((code) => String.fromCharCode(code));

/** Any Unicode code point but the surrogates. (fast-check's own 'binary' unit takes seconds to build.) */
const anyCodePoint = fc.nat({ max: 0x10ffff - 0x800 }).map((code) => String.fromCodePoint(code < 0xd800 ? code : code + 0x800));

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

/** Deeply nested JSON text (arrays, objects or both), as deep as a parser's stack may not like. */
export const deepJsonText: fc.Arbitrary<string> = fc
  .record({ depth: fc.constantFrom(20, 200, 2000, 20_000, 100_000), kind: fc.constantFrom('array', 'object', 'mixed') })
  .map(({ depth, kind }) => {
    if (kind === 'array') return `${'['.repeat(depth)}1${']'.repeat(depth)}`;
    if (kind === 'object') return `${'{"a":'.repeat(depth)}1${'}'.repeat(depth)}`;
    return `${'{"a":['.repeat(depth)}1${']}'.repeat(depth)}`;
  });

/** A deeply nested JSON value (kept moderate: the value is serialized by the client first). */
export function deepValue(depth: number, leaf: unknown = 1): unknown {
  let value = leaf;
  for (let i = 0; i < depth; i += 1) value = i % 2 === 0 ? [value] : { a: value };
  return value;
}

/** JSON object text with a key repeated, the last or the first value being the valid one. */
export function duplicateKeysText(base: Record<string, unknown>): fc.Arbitrary<string> {
  const entries = Object.entries(base);
  return fc.tuple(anyJsonValue, fc.boolean(), fc.constantFrom('dup', '__proto__', 'constructor')).map(([other, validLast, mode]) => {
    const parts = entries.map(([key, value]) => `${JSON.stringify(key)}:${JSON.stringify(value)}`);
    const first = entries[0];
    if (mode === '__proto__') parts.push(`"__proto__":{"polluted":${JSON.stringify(other) ?? 'null'}}`);
    else if (mode === 'constructor') parts.push(`"constructor":{"prototype":{"polluted":true}}`);
    else if (first) {
      const duplicate = `${JSON.stringify(first[0])}:${JSON.stringify(other) ?? 'null'}`;
      if (validLast) parts.unshift(duplicate);
      else parts.push(duplicate);
    }
    return `{${parts.join(',')}}`;
  });
}

/** Bodies that are not JSON at all, or almost JSON. */
export const nonJsonText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(
    '',
    ' ',
    'hello',
    '{',
    '{"a":',
    '[1,2',
    "{'a':1}",
    '{a:1}',
    '{"a":1,}',
    '[1,]',
    'NaN',
    'undefined',
    '<?xml version="1.0"?><a/>',
    'a=1&b=2',
    '\uFEFF{}',
    '{"a":"\\ud800"}',
    '{"a":"\u0000"}',
    '"\\u0000"',
    '{"a":1e309}',
    '--boundary\r\nContent-Disposition: form-data; name="a"\r\n\r\n1\r\n--boundary--',
    '\u0000\u0001\u0002',
  ),
  fc.string({ maxLength: 200, unit: anyCodeUnit }),
  fc.string({ maxLength: 100, unit: anyCodePoint }),
);

/** Content types: the JSON ones in many spellings, others, and random ones. */
export const contentType: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 6, arbitrary: fc.constant('application/json') },
  {
    weight: 4,
    arbitrary: fc.constantFrom(
      undefined,
      'application/json; charset=utf-8',
      'APPLICATION/JSON',
      'application/json; charset=latin1',
      'application/json;;;',
      'application/json, text/plain',
      'application/graphql-response+json',
      'application/merge-patch+json',
      'application/x-www-form-urlencoded',
      'multipart/form-data; boundary=boundary',
      'text/plain',
      'text/html',
      'application/xml',
      'application/octet-stream',
      'application/graphql',
      '',
      '*/*',
      'json',
    ),
  },
  { weight: 1, arbitrary: fc.stringMatching(/^[a-z]{1,10}\/[a-z+.-]{1,20}(; ?[a-z]{1,8}=[a-z0-9-]{1,10})?$/) },
);

/** Header values fetch can send: printable Latin-1 only (no control characters), bounded in length. */
export const headerText: fc.Arbitrary<string> = fc.oneof(
  fc.constantFrom(...injectionStrings.filter(isHeaderSafe)),
  fc.string({ maxLength: 100, unit: fc.integer({ min: 0x20, max: 0x7e }).map((code) => String.fromCharCode(code)) }),
  fc.string({ maxLength: 40, unit: fc.integer({ min: 0xa0, max: 0xff }).map((code) => String.fromCharCode(code)) }),
  fc.constantFrom(0, 100, 2000).map((n) => 'A'.repeat(n)),
);

export function isHeaderSafe(text: string): boolean {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what this rejects
  return /^[^\u0000-\u001f\u007f\u0100-\uffff]*$/.test(text) && text.trim() === text;
}

/**
 * A path segment as a client would put it in a URL: percent-encoded UTF-8 (lone surrogates become U+FFFD), or
 * raw junk that is not valid percent-encoding at all.
 */
export const pathSegment = (value: fc.Arbitrary<string>): fc.Arbitrary<string> =>
  fc.oneof(
    { weight: 8, arbitrary: value.map(encodeSegment) },
    {
      weight: 2,
      arbitrary: fc.constantFrom(
        '%',
        '%zz',
        '%C0%AF',
        '%00',
        '%2F',
        '%2e%2e',
        '..',
        '.',
        '%FF%FE',
        'a%2Fb',
        'a;b=c',
        '%25',
        'a%20b',
        '%E2%80%AE',
        '%ED%A0%80',
      ),
    },
  );

/** Percent-encodes every byte of the UTF-8 text but the unreserved characters (encodeURIComponent throws on lone surrogates). */
export function encodeSegment(text: string): string {
  let out = '';
  for (const byte of Buffer.from(text, 'utf8')) {
    const char = String.fromCharCode(byte);
    out += /[A-Za-z0-9._~-]/.test(char) ? char : `%${byte.toString(16).toUpperCase().padStart(2, '0')}`;
  }
  return out;
}

/** A query string from named generators (each parameter present or not), plus random extra or repeated ones. */
export function queryString(params: Record<string, fc.Arbitrary<string>>): fc.Arbitrary<string> {
  const named = Object.entries(params).map(([name, arbitrary]) =>
    fc.option(
      arbitrary.map((value) => `${name}=${encodeSegment(value)}`),
      { nil: undefined },
    ),
  );
  const extra = fc.array(
    fc.oneof(
      fc.tuple(nastyString, nastyString).map(([name, value]) => `${encodeSegment(name)}=${encodeSegment(value)}`),
      fc.constantFrom(...Object.keys(params), 'x').map((name) => `${name}=1&${name}=2`),
      fc.constantFrom('&', '=', '&&', '%', 'a[b]=1', 'a[]=1', '__proto__[x]=1', 'constructor[prototype][x]=1'),
    ),
    { maxLength: 2 },
  );
  return fc.tuple(fc.tuple(...named), extra).map(([parts, more]) => {
    const all = [...parts.filter((part): part is string => part !== undefined), ...more];
    return all.length === 0 ? '' : `?${all.join('&')}`;
  });
}

/** Replaces, removes or adds fields of a valid body, or swaps the whole body for something else. */
export function mutatedBody(valid: fc.Arbitrary<Record<string, unknown>>): fc.Arbitrary<unknown> {
  return fc.oneof(
    { weight: 2, arbitrary: valid },
    {
      weight: 4,
      arbitrary: fc
        .tuple(valid, fc.nat(), anyJsonValue, fc.constantFrom('replace', 'remove', 'add', 'nest'))
        .map(([body, index, value, how]) => {
          const keys = Object.keys(body);
          const key = keys.length > 0 ? keys[index % keys.length]! : 'x';
          const copy: Record<string, unknown> = { ...body };
          if (how === 'replace') copy[key] = value;
          else if (how === 'remove') delete copy[key];
          else if (how === 'add') copy[`extra_${index % 3}`] = value;
          else copy[key] = deepValue(50, copy[key]);
          return copy;
        }),
    },
    { weight: 1, arbitrary: valid.map((body) => [body]) },
    { weight: 2, arbitrary: anyJsonValue },
  );
}
