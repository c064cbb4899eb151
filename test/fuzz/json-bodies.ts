/** Bodies and payloads that break parsers: deep nesting, duplicate keys, text that is not JSON, mutated valid bodies. */
import fc from 'fast-check';
import { anyCodeUnit, anyJsonValue } from './nasty-values.js';

/** Any Unicode code point but the surrogates. (fast-check's own 'binary' unit takes seconds to build.) */
const anyCodePoint = fc.nat({ max: 0x10ffff - 0x800 }).map((code) => String.fromCodePoint(code < 0xd800 ? code : code + 0x800));

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
