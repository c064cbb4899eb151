/** The ingest batch's last writes go out as one statement: each part's parameters renumbered after the previous ones'. */
import assert from 'node:assert/strict';
import { test } from 'node:test';
import { combineStatements } from '../../src/store/batch-writer/postgres-statements.js';

test('combineStatements: one statement as it is, several as WITH queries with their parameters renumbered in order', () => {
  assert.equal(combineStatements([]), undefined);
  const one = { text: 'update t set a = $1', values: [1] };
  assert.equal(combineStatements([one]), one);
  const combined = combineStatements([
    { text: 'update t set a = $1 where b = $2 and c = $1', values: ['a', 'b'] },
    { text: 'insert into u select * from unnest($1::int[], $12::int[])', values: [[1], ...Array(10).fill(null), [2]] },
    { text: 'delete from v where x = $1', values: ['x'] },
  ])!;
  assert.equal(
    combined.text,
    'with w0 as (update t set a = $1 where b = $2 and c = $1),\n' +
      'w1 as (insert into u select * from unnest($3::int[], $14::int[])),\n' +
      'w2 as (delete from v where x = $15)\nselect 1',
  );
  assert.deepEqual(combined.values, ['a', 'b', [1], ...Array(10).fill(null), [2], 'x']);
});
