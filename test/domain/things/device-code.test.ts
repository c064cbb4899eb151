import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { parseDeviceCode, tuidFromImcPsn } from '../../../src/domain/things/device-code.js';

describe('tuidFromImcPsn (seed 000: IMC then PSN)', () => {
  test('concatenates IMC first, then PSN', () => {
    assert.equal(tuidFromImcPsn('TD01', '000123'), 'TD01000123');
    assert.notEqual(tuidFromImcPsn('TD01', '000123'), tuidFromImcPsn('000123', 'TD01'));
  });

  test('drops blanks around each part, as typed or scanned, and keeps the rest as it is', () => {
    assert.equal(tuidFromImcPsn('  td01 ', '\t000123\n'), 'td01000123');
  });
});

describe('parseDeviceCode: what a QR code may hold', () => {
  test('reads imc and psn parameters of a URL or a bare query string, ignoring the names case', () => {
    assert.deepEqual(parseDeviceCode('https://devices.example/i?imc=TD01&psn=000123'), { imc: 'TD01', psn: '000123' });
    assert.deepEqual(parseDeviceCode('IMC=TD01&PSN=000123#label'), { imc: 'TD01', psn: '000123' });
  });

  test('reads a JSON object with imc and psn strings', () => {
    assert.deepEqual(parseDeviceCode(' {"imc":"TD01","psn":" 000123"} '), { imc: 'TD01', psn: '000123' });
  });

  test('refuses a payload missing either part, with an empty part, or with a part that is not a string', () => {
    assert.equal(parseDeviceCode('https://devices.example/i?imc=TD01'), undefined);
    assert.equal(parseDeviceCode('imc=&psn=000123'), undefined);
    assert.equal(parseDeviceCode('{"imc":"TD01","psn":123}'), undefined);
    assert.equal(parseDeviceCode('{"imc":"TD01"'), undefined);
    assert.equal(parseDeviceCode('TD01000123'), undefined);
  });
});
