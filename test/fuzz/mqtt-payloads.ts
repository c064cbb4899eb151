import fc from 'fast-check';
import { exampleMessage, messageDefinitions } from '../../src/catalog/index.js';
import { deepJsonText, deepValue, nonJsonText } from './json-bodies.js';
import { anyJsonValue, longString, nastyNumber, nastyString, numberTexts, poolOrNasty, unicodeJunk } from './nasty-values.js';

/** Things the MQTT fuzzer's messages are mostly about, so summaries and duplicates get exercised. */
export const fuzzTuids = ['MQ-1', 'MQ-2', 'MQ-3'] as const;
const t0 = 1_790_000_000;

const uplinkIds = messageDefinitions.filter((definition) => definition.direction !== 'downlink').map((definition) => definition.tsmId);

/** A catalog uplink of a random id for one of the fuzz things, valid as the catalog says. */
const validMessage: fc.Arbitrary<Record<string, unknown>> = fc
  .record({ tsmId: fc.constantFrom(...uplinkIds), tuid: fc.constantFrom(...fuzzTuids), ts: fc.integer({ min: t0 - 1000, max: t0 + 1000 }) })
  .map(({ tsmId, tuid, ts }) => ({ ...exampleMessage(tsmId), tsmTuid: tuid, tsmTs: ts }));

/** Envelope values of the wrong kind: strings for numbers, fractions, negatives, huge, null, objects. */
const badEnvelopeValue = fc.oneof(
  nastyNumber,
  nastyString,
  anyJsonValue,
  fc.constantFrom(null, -1, 1.5, 2 ** 31, 2 ** 53, '1110', '', [], {}),
);

/** A message with its envelope or fields broken in one or more ways. */
const brokenMessage: fc.Arbitrary<Record<string, unknown>> = fc
  .tuple(
    validMessage,
    fc.array(
      fc.tuple(
        fc.constantFrom('tsmId', 'tsmTs', 'tsmTuid', 'tsmEv', 'tsmGw', 'batl', 'transactionId', 'extra'),
        fc.oneof(badEnvelopeValue, fc.constant(undefined)),
      ),
      { minLength: 1, maxLength: 3 },
    ),
  )
  .map(([message, changes]) => {
    const copy: Record<string, unknown> = { ...message };
    for (const [key, value] of changes) {
      if (value === undefined) delete copy[key];
      else copy[key] = value;
    }
    return copy;
  });

/** Odd but readable messages: unknown ids, unknown fields, nested junk, NUL and other unicode, long strings. */
const oddMessage: fc.Arbitrary<Record<string, unknown>> = fc
  .record({
    tsmId: fc.oneof(fc.constantFrom(99999, 0, 2_147_483_647, 1110, 1100, 1210), fc.nat()),
    tsmTs: fc.oneof(fc.integer({ min: 0, max: 2 ** 40 }), fc.double({ min: 0, max: 2e9, noNaN: true })),
    tsmTuid: poolOrNasty([...fuzzTuids]),
    junk: fc.oneof(
      fc.constant(deepValue(300)),
      longString,
      fc.constantFrom(...unicodeJunk),
      fc.dictionary(nastyString, anyJsonValue, { maxKeys: 5 }),
    ),
  })
  .map(({ junk, ...envelope }) => ({
    ...envelope,
    [`f${(JSON.stringify(junk) ?? '').length % 7}`]: junk,
    'key\u0000nul': 'v\u0000',
    ['\uD800']: 1,
  }));

const message = fc.oneof(
  { weight: 3, arbitrary: validMessage },
  { weight: 3, arbitrary: brokenMessage },
  { weight: 2, arbitrary: oddMessage },
  { weight: 1, arbitrary: anyJsonValue },
);

/** JSON text of a message with a raw number no JSON.stringify would write (1e309 parses as Infinity). */
const rawNumberMessage = fc
  .tuple(
    validMessage,
    fc.constantFrom('tsmTs', 'tsmId', 'tsmEv', 'batl', 'lat', 'swVersion'),
    fc.constantFrom(...numberTexts.filter((text) => /^-?\d/.test(text) && !/[_,\s]/.test(text))),
  )
  .map(([valid, key, raw]) => JSON.stringify({ ...valid, [key]: '@RAW@' }).replace('"@RAW@"', raw));

/** Every kind of uplink payload the property publishes: text, or raw bytes. */
export const uplinkPayload: fc.Arbitrary<string | Uint8Array> = fc.oneof(
  { weight: 4, arbitrary: fc.array(message, { minLength: 1, maxLength: 6 }).map((messages) => JSON.stringify(messages)) },
  { weight: 2, arbitrary: message.map((single) => JSON.stringify(single) ?? 'null') },
  { weight: 1, arbitrary: fc.array(rawNumberMessage, { minLength: 1, maxLength: 3 }).map((texts) => `[${texts.join(',')}]`) },
  // The same message twice in one payload: stored once, counted once as a duplicate.
  { weight: 1, arbitrary: validMessage.map((valid) => JSON.stringify([valid, valid])) },
  {
    weight: 1,
    arbitrary: fc.tuple(fc.array(validMessage, { minLength: 1, maxLength: 4 }), fc.nat()).map(([messages, cut]) => {
      const text = JSON.stringify(messages);
      return text.slice(0, cut % text.length);
    }),
  },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(500, 3000)
      .chain((count) =>
        fc.constant(
          JSON.stringify(
            Array.from({ length: count }, (_, index) => ({ tsmId: 1112, tsmEv: 10, tsmTs: t0 + index, tsmTuid: 'MQ-BULK', uptime: index })),
          ),
        ),
      ),
  },
  { weight: 1, arbitrary: fc.constantFrom(1000, 5000).map((count) => JSON.stringify(Array.from({ length: count }, (_, index) => index))) },
  { weight: 1, arbitrary: nonJsonText },
  { weight: 1, arbitrary: deepJsonText },
  { weight: 1, arbitrary: fc.uint8Array({ maxLength: 300 }) },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      '[]',
      '{}',
      'null',
      '0',
      '""',
      '[[]]',
      '[null]',
      '[{}]',
      '[[{"tsmId":1110}]]',
      '\uFEFF[]',
      '[1e309]',
      '{"tsmId":1110,"tsmTs":1790000000,"tsmTuid":"MQ-1","tsmTuid":"MQ-2"}',
      '{"__proto__":{"tsmId":1},"tsmTs":1,"tsmTuid":"MQ-1"}',
    ),
  },
);

/** A gateway topic segment: anything a topic level may hold (no '/', '+', '#' or NUL; not empty). */
export const gatewaySegment: fc.Arbitrary<string> = fc.oneof(
  { weight: 3, arbitrary: fc.constantFrom('GW-1', 'GW-2') },
  // eslint-disable-next-line no-control-regex -- NUL is exactly what a topic may not hold
  { weight: 2, arbitrary: nastyString.filter((text) => text !== '' && !/[/+#\u0000]/.test(text) && Buffer.byteLength(text) < 1000) },
);
