/** The definitions themselves: complete, consistent with the seed, and plain JSON. */
import { describe, test } from 'node:test';
import assert from 'node:assert/strict';
import { eventDefinitions, exampleMessage, getEventDefinition, getMessageDefinition, messageDefinitions } from '../../src/catalog/index.js';
import type { FieldDefinition, MessageDefinition } from '../../src/catalog/index.js';

/** The ids seed 002 defines, written out independently of the definitions. */
const seedIds = [
  1100, 1101, 1102, 1110, 1111, 1112, 1200, 1201, 1202, 1203, 1205, 1206, 1207, 1208, 1210, 1211, 1212, 1220, 1221, 1222, 1300, 1301, 1302,
  1303, 1312, 1313, 1400, 1401, 1402, 1403, 1404, 1500, 1501, 1502, 1503, 1504, 1505, 1600, 12100, 12101, 12102, 12200, 12210, 12211, 12212,
  13200,
];

const definitions: readonly MessageDefinition[] = messageDefinitions;

function allFields(fields: readonly FieldDefinition[]): FieldDefinition[] {
  return fields.flatMap((field) => [field, ...allFields(field.items?.fields ?? [])]);
}

function fieldsOf(definition: MessageDefinition): FieldDefinition[] {
  return allFields([...definition.fields, ...(definition.variants ?? []).flatMap((variant) => variant.fields)]);
}

describe('messageDefinitions', () => {
  test('define exactly the seed ids, once each, in order', () => {
    assert.deepEqual(
      definitions.map((definition) => definition.tsmId),
      seedIds,
    );
  });

  test('are plain JSON', () => {
    assert.deepEqual(JSON.parse(JSON.stringify(messageDefinitions)), messageDefinitions);
  });

  test('are frozen, so a consumer cannot change the rules', () => {
    assert.ok(Object.isFrozen(messageDefinitions[0]));
    assert.throws(() => {
      (messageDefinitions[0] as { name: string }).name = 'changed';
    });
  });

  test('profiles follow the id ranges (13200 is listed with the Environment Profile)', () => {
    for (const definition of definitions) {
      assert.equal(definition.profile, definition.tsmId < 2000 ? 'common' : 'environment', `${definition.tsmId}`);
    }
  });

  test('ids with variants are exactly 1201, 1203 and 1402, each with a request and a response', () => {
    const withVariants = definitions.filter((definition) => definition.variants !== undefined);
    assert.deepEqual(
      withVariants.map((definition) => definition.tsmId),
      [1201, 1203, 1402],
    );
    for (const definition of withVariants) {
      assert.equal(definition.direction, 'both');
      assert.deepEqual(
        definition.variants?.map((variant) => [variant.name, variant.direction]),
        [
          ['request', 'downlink'],
          ['response', 'uplink'],
        ],
      );
    }
  });

  test('field names are unique within a message form', () => {
    for (const definition of definitions) {
      const forms = definition.variants ?? [definition];
      for (const form of forms) {
        const names = form.fields.map((field) => field.name);
        assert.equal(new Set(names).size, names.length, `${definition.tsmId}`);
      }
    }
  });

  test('every example and default satisfies its own field (checked via exampleMessage in the table tests), and defaults of 12210-12212 match the seed', () => {
    const defaults = Object.fromEntries(
      [12210, 12211, 12212].flatMap((tsmId) =>
        fieldsOf(getMessageDefinition(tsmId) as MessageDefinition)
          .filter((field) => field.default !== undefined)
          .map((field) => [`${tsmId}.${field.name}`, field.default]),
      ),
    );
    assert.deepEqual(defaults, {
      '12210.intervalMultiplier': 1,
      '12210.weatherMode': 1,
      '12210.temperatureHysteresis': 0.5,
      '12210.humidityHysteresis': 2,
      '12210.pressureHysteresis': 20,
      '12210.lightHysteresis': 100,
      '12211.intervalMultiplier': 1,
      '12211.hallMode': 1,
      '12212.intervalMultiplier': 1,
      '12212.leakageMode': 0,
      '12212.resistanceHysteresis': 10000,
    });
  });

  test('value sets have distinct values and a meaning for each', () => {
    for (const definition of definitions) {
      for (const field of fieldsOf(definition)) {
        if (field.values === undefined) continue;
        const values = field.values.map((entry) => entry.value);
        assert.equal(new Set(values).size, values.length, `${definition.tsmId}.${field.name}`);
        assert.ok(field.values.every((entry) => entry.meaning.length > 0));
      }
    }
  });

  test('getMessageDefinition finds ids and answers undefined for others', () => {
    assert.equal(getMessageDefinition(1206)?.name, 'Beacon format A configuration');
    assert.equal(getMessageDefinition(24100), undefined);
  });

  test('exampleMessage refuses unknown ids and missing variants', () => {
    assert.throws(() => exampleMessage(24100), RangeError);
    assert.throws(() => exampleMessage(1100, 'request'), RangeError);
  });

  test('examples carry the envelope of their direction', () => {
    assert.deepEqual(Object.keys(exampleMessage(1110)).slice(0, 5), ['tsmId', 'tsmEv', 'tsmTs', 'tsmTuid', 'tsmGw']);
    assert.deepEqual(Object.keys(exampleMessage(1500)).slice(0, 5), ['tsmId', 'tsmEv', 'tsmTs', 'tsmDstTuid', 'transactionId']);
    assert.equal(exampleMessage(1501).tsmEv, 30, 'a downlink without a known event uses 30');
    assert.equal(exampleMessage(1402, 'response').tsmEv, 36);
  });
});

describe('eventDefinitions', () => {
  test('list the events of seed part 6 with the messages that use them', () => {
    const table = Object.fromEntries(eventDefinitions.map((event) => [event.id, event.tsmIds]));
    assert.deepEqual(table, {
      10: [1110],
      11: [1100],
      19: [1201, 1203],
      20: [1201, 1203],
      23: [1404],
      25: [1300],
      27: [1401],
      29: [1403],
      30: [1206, 1207, 1208, 1500, 1504, 12200, 12210, 12211, 12212, 13200],
      31: [1500],
      32: [1101],
      33: [],
      35: [1402, 1600],
      36: [1402],
      101: [1110],
    });
  });

  test('every event a definition uses is in the table', () => {
    for (const definition of definitions) {
      const events = [...definition.events, ...(definition.variants ?? []).flatMap((variant) => variant.events)];
      for (const event of events) assert.ok(getEventDefinition(event), `${definition.tsmId} uses unknown event ${event}`);
    }
  });
});
