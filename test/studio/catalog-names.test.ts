/** The studio's names from the catalog: labels in words, never a wire name or a note about the seed. */
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { eventDefinitions, messageDefinitions } from '../../src/catalog/index.js';
import { deviceAnswerEventIds } from '../../src/catalog/event-uses.js';
import { describeField, describeFields, fieldOf, messageName, wordsOf, type NamedMessage } from '../../studio/src/lib/catalog-names.js';
import {
  commandEntries,
  offeredEvents,
  payloadOf,
  shownStatus,
  type CatalogEntry,
} from '../../studio/src/components/commands/command-form-model.js';

// The catalog exactly as the GraphQL `catalog` query serves it (JSON).
const catalog = JSON.parse(JSON.stringify(messageDefinitions)) as (NamedMessage & CatalogEntry)[];
const allFields = catalog.flatMap((message) => [...message.fields, ...(message.variants ?? []).flatMap((variant) => variant.fields)]);

describe('catalog names in the studio', () => {
  test('the weather fields read as words with their units', () => {
    assert.deepEqual(describeField(fieldOf(catalog, 12100, 'airp')!), { label: 'Air pressure', hint: '' });
    assert.equal(fieldOf(catalog, 12100, 'airp')!.unit, 'Pa');
    assert.equal(describeField(fieldOf(catalog, 12100, 'humd')!).label, 'Relative humidity');
    assert.equal(messageName(catalog, 12100), 'Weather Info');
    assert.equal(fieldOf(catalog, 12100, 'nope'), undefined);
  });

  test('no label or hint of any field carries a note about the seed; no label is camelCase', () => {
    assert.ok(
      allFields.some((field) => /seed/.test(field.description ?? '')),
      'the catalog has such notes to drop',
    );
    for (const field of allFields) {
      const { label, hint } = describeField(field);
      assert.doesNotMatch(`${label} ${hint}`, /seed/i, field.name);
      assert.doesNotMatch(label, /[a-z][A-Z]/, `${field.name}: ${label}`);
      assert.ok(label.length > 0 && label.length <= 40, `${field.name}: ${label}`);
    }
    assert.deepEqual(describeField(fieldOf(catalog, 1500, 'measurementInterval')!), { label: 'Measurement interval', hint: '' });
    assert.deepEqual(describeField(fieldOf(catalog, 1500, 'transactionId')!), {
      label: 'Transaction id',
      hint: 'Caller-chosen id, echoed by the device in its response',
    });
  });

  test("a message's values read in words: units, value sets by meaning, unknown fields by their wire name", () => {
    assert.equal(
      describeFields(catalog, 12100, [
        ['airp', 101000],
        ['humd', 94.475],
      ]),
      'Air pressure: 101,000 Pa, Relative humidity: 94.475 %RH',
    );
    assert.equal(describeFields(catalog, 12101, [['hall', 1]]), 'Switch state: closed');
    assert.equal(describeFields(catalog, 12100, [['extra', { a: 1 }]]), 'extra: {"a":1}');
    assert.equal(describeFields(catalog, 99999, [['x', 'y']]), 'x: y');
  });

  test('a long or clause-split description gives a short label and keeps the rest as the hint', () => {
    assert.deepEqual(describeField({ name: 'lowLatency', description: 'Low-latency mode; mains-powered devices only' }), {
      label: 'Low-latency mode',
      hint: 'mains-powered devices only',
    });
    assert.equal(wordsOf('accelerometerMode'), 'Accelerometer mode');
    assert.equal(describeField({ name: 'weatherMode' }).label, 'Weather mode');
  });

  test("the device's answer events are in the event table as responses, and are never offered to send", () => {
    for (const id of deviceAnswerEventIds) assert.match(eventDefinitions.find((event) => event.id === id)!.use, /response/i);
    const entries = commandEntries(catalog);
    assert.ok(entries.find((entry) => entry.tsmId === 1500)!.events.includes(31), '1500 lists its echo');
    for (const entry of entries) {
      const offered = offeredEvents(entry);
      assert.ok(offered.length > 0, String(entry.tsmId));
      for (const event of offered) assert.ok(!deviceAnswerEventIds.includes(event), `${entry.tsmId} offers ${event}`);
    }
    assert.deepEqual(offeredEvents(entries.find((entry) => entry.tsmId === 1500)!), [30]);
    assert.deepEqual(offeredEvents(entries.find((entry) => entry.tsmId === 1501)!), [30], 'no event in the catalog: 30');
  });

  test('the history shows the payload without envelope or tracking, and `no answer` only for a late `sent`', () => {
    const tracked = {
      tsmId: 1500,
      tsmEv: 30,
      transactionId: 7,
      measurementInterval: 60,
      status: 'sent',
      respondedAt: null,
      response: null,
    };
    assert.deepEqual(payloadOf(tracked), [['measurementInterval', 60]]);
    assert.equal(shownStatus('sent', 1000, 1599, 600), 'sent');
    assert.equal(shownStatus('sent', 1000, 1600, 600), 'no answer');
    assert.equal(shownStatus('applied', 1000, 9999, 600), 'applied');
    assert.equal(shownStatus('unavailable', 1000, 9999, 600), 'unavailable');
  });
});
