/**
 * JSON request bodies are read strictly (issue 12 item 14 a-d): UTF-8 only, no number a double cannot hold exactly,
 * no key twice in one object. Each case was accepted before, and stored something other than what was sent.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { cleanupStores } from '../helpers/databases.js';
import { RestClient, type RestResponse } from '../helpers/rest-client.js';
import { startTestApp, type TestApp } from '../helpers/test-app.js';
import { closeMqttClients, publishUplinks } from '../helpers/uplinks.js';

after(cleanupStores);
after(closeMqttClients);

/** What these tests read of an answer: the error body, or the few data fields they check. */
interface Answer {
  code: string;
  message: string;
  errors?: { field: string; message: string }[];
  data: { group_id: string; commands: { transactionId: number }[] };
}

describe('JSON bodies are read strictly', () => {
  let server: TestApp;
  let rest: RestClient;
  before(async () => {
    server = await startTestApp();
    rest = new RestClient(server);
    await publishUplinks(
      server,
      ['J-1', 'J-2'].map((tuid) => ({ tsmId: 1112, tsmEv: 10, tsmTs: 1_790_000_000, tsmTuid: tuid, uptime: 1 })),
    );
  });
  after(() => server?.stop());

  /** POSTs bytes as they are (fetch would encode a string as UTF-8). */
  async function postBytes(path: string, body: Buffer | string, contentType = 'application/json'): Promise<RestResponse<Answer>> {
    const response = await fetch(server.url(`${server.config.restBasePath}${path}`), {
      method: 'POST',
      headers: { authorization: `Bearer ${await rest.accessToken()}`, 'content-type': contentType },
      body,
    });
    const text = await response.text();
    return { status: response.status, headers: response.headers, body: (text ? JSON.parse(text) : undefined) as Answer, text };
  }

  const fieldsOf = (response: RestResponse<Answer>) => (response.body.errors ?? []).map((e) => e.field);
  const statusOf = async (tuid: string) => (await rest.get(`/things/${tuid}`)).body.data.installation_status as string;

  test('a body that is not valid UTF-8 is a 400 MALFORMED_JSON, never stored with U+FFFD in its place', async () => {
    const invalid: [string, number[]][] = [
      ['stray byte', [0xff]],
      ['truncated sequence', [0xe2, 0x82]],
      ['overlong slash', [0xc0, 0xaf]],
      ['encoded surrogate', [0xed, 0xa0, 0x80]],
    ];
    for (const [what, bytes] of invalid) {
      const body = Buffer.concat([Buffer.from('{"group_id":"utf8-'), Buffer.from(bytes), Buffer.from('"}')]);
      const response = await postBytes('/groups', body);
      assert.equal(response.status, 400, `${what}: ${response.text}`);
      assert.equal(response.body.code, 'MALFORMED_JSON', what);
      assert.match(response.body.message, /not valid UTF-8/, what);
    }
    assert.deepEqual((await rest.get('/groups?q=utf8-')).body.data, []);
    const valid = await postBytes('/groups', Buffer.from('{"group_id":"utf8-ok-\u00e9\u6771"}', 'utf8'));
    assert.equal(valid.status, 200, valid.text);
    assert.equal(valid.body.data.group_id, 'utf8-ok-\u00e9\u6771');
  });

  test('a number beyond ±(2^53 - 1) is a 400 VALIDATION_FAILED naming the field, and nothing is sent', async () => {
    const command = (transactionId: string) =>
      `[{"tsmId":1500,"tsmEv":30,"transactionId":${transactionId},"measurementInterval":60,"reportInterval":300}]`;
    for (const literal of ['99999999999999999999', '9007199254740992', '-9007199254740992', '1e20', '1.5e300', '1e400']) {
      const response = await postBytes('/things/J-1/commands', command(literal));
      assert.equal(response.status, 400, `${literal}: ${response.text}`);
      assert.equal(response.body.code, 'VALIDATION_FAILED', literal);
      assert.deepEqual(fieldsOf(response), ['commands[0].transactionId'], literal);
    }
    assert.deepEqual((await rest.get('/things/J-1/commands')).body.data, []);
    const nested = await postBytes(
      '/things/J-1/commands',
      '[{"tsmId":13200,"tsmEv":30,"transactionId":1,"free":{"list":[1,123456789012345678901]}}]',
    );
    assert.deepEqual(fieldsOf(nested), ['commands[0].free.list[1]'], nested.text);

    const largest = await postBytes('/things/J-1/commands', command('9007199254740991'));
    assert.equal(largest.status, 200, largest.text);
    assert.equal(largest.body.data.commands[0]?.transactionId, 9007199254740991);
    const precise = await postBytes(
      '/things/J-1/commands',
      '[{"tsmId":13200,"tsmEv":30,"transactionId":2,"ratio":0.1234567890123456789,"small":-12.5e-3}]',
    );
    assert.equal(precise.status, 200, precise.text);
  });

  test('a key given twice in one object is a 400 naming it, and neither value is applied', async () => {
    const twice = await postBytes('/things/J-2/installations', '{"installation_status":"installed","installation_status":"retired"}');
    assert.equal(twice.status, 400, twice.text);
    assert.equal(twice.body.code, 'MALFORMED_JSON');
    assert.deepEqual(fieldsOf(twice), ['installation_status']);
    // The same key spelled with an escape is the same key.
    const escaped = await postBytes(
      '/things/J-2/installations',
      '{"installation_status":"installed","installation_\\u0073tatus":"retired"}',
    );
    assert.equal(escaped.status, 400, escaped.text);
    assert.deepEqual(fieldsOf(escaped), ['installation_status']);
    assert.equal(await statusOf('J-2'), 'new');

    const deep = await postBytes('/things/J-2/commands', '[{"tsmId":13200,"tsmEv":30,"transactionId":3,"x":{"a":1,"b":{"a":2},"a":3}}]');
    assert.equal(deep.status, 400, deep.text);
    assert.deepEqual(fieldsOf(deep), ['commands[0].x.a']);

    // The same key in different objects, and keys that only look alike inside strings, are fine.
    const siblings = await postBytes(
      '/things/J-2/commands',
      '[{"tsmId":13200,"tsmEv":30,"transactionId":4,"x":{"a":1,"b":{"a":2}},"y":"\\"x\\":1,\\"x\\":2"}]',
    );
    assert.equal(siblings.status, 200, siblings.text);
  });

  test('a charset other than UTF-8 is a 415 UNSUPPORTED_MEDIA_TYPE; utf-8 in any spelling is read', async () => {
    for (const contentType of [
      'application/json; charset=latin1',
      'application/json; charset=ISO-8859-1',
      'application/json;charset=utf-16',
    ]) {
      const response = await postBytes('/groups', '{"group_id":"charset-x"}', contentType);
      assert.equal(response.status, 415, `${contentType}: ${response.text}`);
      assert.equal(response.body.code, 'UNSUPPORTED_MEDIA_TYPE', contentType);
    }
    assert.deepEqual((await rest.get('/groups?q=charset-x')).body.data, []);
    let n = 0;
    for (const contentType of [
      'application/json; charset=utf-8',
      'application/json; charset=UTF-8',
      'application/json; charset="utf-8"',
      'application/json',
    ]) {
      const response = await postBytes('/groups', `{"group_id":"charset-ok-${(n += 1)}"}`, contentType);
      assert.equal(response.status, 200, `${contentType}: ${response.text}`);
    }
  });
});
