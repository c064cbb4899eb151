/** The parts of an HTTP request around the body: content types, header values, path segments, query strings. */
import fc from 'fast-check';
import { injectionStrings, nastyString } from './nasty-values.js';

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
