/**
 * The PostgreSQL batch writer sends a batch's message bodies as one binary parameter cut by byte offsets
 * (`packTexts`), not as an escaped text array: every body must come back byte for byte whatever it holds
 * (characters of two, three and four UTF-8 bytes next to ASCII ones, quotes, backslashes, escapes), with each
 * message's own body, and a duplicate in the batch still stored once.
 */
import assert from 'node:assert/strict';
import { after, describe, test } from 'node:test';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { messageJsonWithGroup } from '../../src/domain/messages/message-json.js';
import { parseUplink } from '../../src/ingest/parse-uplink.js';
import { ingestBatchWriter } from '../../src/store/batch-writer/batch-writer.js';
import { packTexts } from '../../src/store/batch-writer/ingest-batch-postgres.js';
import { cleanupStores, createPostgresUrl, openMigratedStore, postgresSkipReason } from '../helpers/databases.js';

after(cleanupStores);

const t0 = 1_790_035_200;

test('packTexts: each text at its 1-based byte offset, for its byte length', () => {
  const texts = ['a"b', 'ä€😀', '', '\\"x"'];
  const { bytes, starts, lengths } = packTexts(texts);
  assert.deepEqual(lengths, [3, 9, 0, 4]);
  assert.deepEqual(starts, [1, 4, 13, 13]);
  texts.forEach((text, i) => assert.equal(bytes.subarray(starts[i]! - 1, starts[i]! - 1 + lengths[i]!).toString('utf8'), text));
});

describe('PostgreSQL batch writer: message bodies', { skip: postgresSkipReason }, () => {
  test('stored byte for byte, each with its own message, a repeat in the batch once', async () => {
    const { database, store } = await openMigratedStore(await createPostgresUrl());
    await createOrganization({ store, clock: systemClock }, { name: 'acme', id: 'acme' });
    const commit = ingestBatchWriter(database);
    try {
      const notes = [
        'plain',
        'ä ö ü',
        '€ in three bytes',
        '😀 in four',
        'a "quoted" \\ backslash',
        'escaped \u0000 nul',
        'x'.repeat(20_000) + 'ß',
      ];
      const messages = notes.map((note, i) => ({ tsmId: 1110, tsmEv: 10, tsmTs: t0 + i, tsmTuid: `T-${i % 3}`, batl: 60, note }));
      const { records } = parseUplink(JSON.stringify([...messages, messages[1]]), {
        organizationId: 'acme',
        gatewayTuid: 'GW',
        source: 'test',
        client: null,
        receivedAt: Date.now(),
      });
      const result = await commit(records, []);
      assert.equal(result.stored.length, notes.length);
      assert.equal(result.duplicates, 1);
      if (database.driver.dialect !== 'postgres') throw new Error('expected PostgreSQL');
      const { rows } = await database.driver.pool.query<{ tsm_ts: number; body: string }>(
        'select tsm_ts, body from messages order by tsm_ts',
      );
      assert.deepEqual(
        rows.map((row) => row.body),
        records.slice(0, notes.length).map((record) => messageJsonWithGroup(record.body, null)),
      );
      assert.deepEqual(
        rows.map((row) => (JSON.parse(row.body) as { note: string }).note),
        notes,
      );
    } finally {
      await commit.close();
      await database.close();
    }
  });
});
