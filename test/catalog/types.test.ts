/**
 * Compile-time checks: tsc type-checks test/, so each @ts-expect-error below must be an error
 * (a misspelt field, a value outside a set) or the type-check fails. The runtime asserts keep
 * the values used.
 */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { commandTsmIds, exampleMessage, validateDownlink } from '../../src/catalog/index.js';
import type {
  AnyCatalogMessage,
  CatalogMessage,
  CatalogPayload,
  CatalogTsmId,
  CommandMessage,
  CommandTsmId,
} from '../../src/catalog/index.js';

test('derived message types accept valid messages and reject misspelt fields', () => {
  const beacon: CatalogMessage<1206> = { tsmId: 1206, tsmEv: 30, transactionId: 1, reportInterval: 1000, txPower: -4 };
  // @ts-expect-error reportIntervall is not a field of 1206
  const misspelt: CatalogMessage<1206> = { tsmId: 1206, transactionId: 1, reportIntervall: 1000 };
  // @ts-expect-error 3 is not in the txPower value set
  const badPower: CatalogMessage<1206> = { tsmId: 1206, transactionId: 1, txPower: 3 };
  // @ts-expect-error transactionId is required on 1500
  const noTransaction: CatalogMessage<1500> = { tsmId: 1500, reportInterval: 60 };
  // @ts-expect-error binaryType must be one of the seed's two strings
  const badBinary: CatalogPayload<1300> = { binaries: [{ binaryUrl: 'https://x.example/a', binaryType: 'esp32' }] };
  const request: CatalogMessage<1201> = { tsmId: 1201, wpnode: 5 };
  const response: CatalogMessage<1201> = { tsmId: 1201, wpnode: 5, tuid: null };
  const open: CatalogMessage<13200> = { tsmId: 13200, anything: true };
  const any: AnyCatalogMessage = { tsmId: 12101, hall: 1 };
  const command: CommandMessage = { tsmId: 12200, tsmEv: 30, transactionId: 2, hallMode: -1 };
  // @ts-expect-error 1206 is not accepted by the command endpoint
  const notCommand: CommandTsmId = 1206;
  // @ts-expect-error 24100 is not a catalog id
  const notCatalog: CatalogTsmId = 24100;
  const example: CatalogMessage<1110> = exampleMessage(1110);
  const ids: readonly CommandTsmId[] = commandTsmIds;

  assert.deepEqual(validateDownlink(beacon), []);
  assert.equal(validateDownlink(misspelt).length, 1);
  assert.equal(validateDownlink(badPower).length, 1);
  assert.equal(validateDownlink(noTransaction).length, 1);
  assert.equal(validateDownlink({ tsmId: 1300, ...badBinary }).length, 1);
  assert.deepEqual(
    [request, response, open, any, command].map((message) => message.tsmId),
    [1201, 1201, 13200, 12101, 12200],
  );
  assert.deepEqual([notCommand, notCatalog, example.tsmId, ids.length], [1206, 24100, 1110, 4]);
});
