import assert from 'node:assert/strict';
import { test } from 'node:test';
import { BinaryCopyDecoder } from '../../src/store/postgres-message-export.js';

// What PostgreSQL sends for `COPY (select body ...) TO STDOUT (FORMAT binary)`: bodies with what the text and CSV
// formats would escape (backslashes, tabs, newlines), quotes and multi-byte characters.
const bodies = ['{"a":1}', '{"note":"tab\\there, \\"quoted\\"\\nand a line"}', '{"city":"Zürich ☃ 𝄞"}', '', '{"b":[1,2]}'];

function copyBytes(values: readonly string[], extension = Buffer.alloc(0)): Buffer {
  const header = Buffer.alloc(19);
  header.write('PGCOPY\n\xff\r\n\0', 'latin1');
  header.writeUInt32BE(extension.length, 15);
  const rows = values.map((value) => {
    const text = Buffer.from(value, 'utf8');
    const row = Buffer.alloc(6);
    row.writeInt16BE(1, 0);
    row.writeInt32BE(text.length, 2);
    return Buffer.concat([row, text]);
  });
  return Buffer.concat([header, extension, ...rows, Buffer.from([0xff, 0xff])]);
}

function decodeInChunks(bytes: Buffer, cuts: readonly number[]): string[] {
  const decoder = new BinaryCopyDecoder();
  const values: string[] = [];
  let from = 0;
  for (const cut of [...cuts, bytes.length]) {
    values.push(...decoder.decode(bytes.subarray(from, cut)));
    from = cut;
  }
  decoder.finish();
  return values;
}

test('the bodies come out exactly, wherever the chunks split the rows', () => {
  const bytes = copyBytes(bodies);
  assert.deepEqual(decodeInChunks(bytes, []), bodies);
  for (let cut = 1; cut < bytes.length; cut++) assert.deepEqual(decodeInChunks(bytes, [cut]), bodies, `split at ${cut}`);
  assert.deepEqual(
    decodeInChunks(
      bytes,
      Array.from({ length: bytes.length - 1 }, (_, i) => i + 1),
    ),
    bodies,
    'a byte at a time',
  );
});

test('a header extension is skipped; an empty COPY has no bodies', () => {
  assert.deepEqual(decodeInChunks(copyBytes(bodies, Buffer.from('ext')), [5, 21]), bodies);
  assert.deepEqual(decodeInChunks(copyBytes([]), [3]), []);
});

test('data cut short is an error, not a shorter export; another format is refused', () => {
  const bytes = copyBytes(bodies);
  for (const end of [10, 30, bytes.length - 1]) {
    const decoder = new BinaryCopyDecoder();
    decoder.decode(bytes.subarray(0, end));
    assert.throws(() => decoder.finish(), /ended in the middle/, `cut at ${end}`);
  }
  assert.throws(() => new BinaryCopyDecoder().decode(Buffer.from('{"a":1}\n{"b":2}\n{"c":3}\n')), /not the binary format/);
});
