import assert from 'node:assert/strict';
import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { after, describe, test } from 'node:test';
import { systemClock } from '../../src/domain/clock.js';
import { createOrganization } from '../../src/domain/identity/identity-service.js';
import { openDatabase } from '../../src/store/database.js';
import { SqliteReaderPool } from '../../src/store/sqlite-reader-pool.js';
import { readerNiceIncrement, type ReaderJob } from '../../src/store/sqlite-reader-protocol.js';
import { isStoreUnavailable, readerLostCode } from '../../src/store/store-unavailable.js';
import { cleanupStores, createSqliteUrl, openMigratedStore } from '../helpers/databases.js';

after(cleanupStores);

const one = (text: string, parameters: unknown[] = []): ReaderJob => ({
  kind: 'statements',
  statements: [{ text, parameters, shape: 'arrays' }],
});

/** A store file with one organization, and its path. */
async function storeFile(): Promise<{ path: string; close(): Promise<void> }> {
  const url = createSqliteUrl();
  const { database, store } = await openMigratedStore(url);
  await createOrganization({ store, clock: systemClock }, { name: 'Acme', id: 'acme' });
  return { path: url.slice('file:'.length), close: () => database.close() };
}

describe('SQLite reader threads', () => {
  test(
    'reader threads run below the event loop’s priority, so heavy reads give way to acknowledgements',
    { skip: !existsSync('/proc/thread-self') && 'per-thread priorities are read from /proc/self/task (Linux only)' },
    async () => {
      // Field 19 of a task's stat is its nice value; the command name (field 2) may hold spaces, so count after it.
      const niceOf = (task: string) => Number(readFileSync(`/proc/self/task/${task}/stat`, 'utf8').split(') ')[1]!.split(' ')[16]);
      const tasks = () => new Map(readdirSync('/proc/self/task').map((task) => [task, niceOf(task)]));
      const file = await storeFile();
      const before = tasks();
      const pool = new SqliteReaderPool(file.path, 2);
      try {
        await Promise.all([pool.run(one('select 1')), pool.run(one('select 2'))]);
        const mainNice = niceOf(String(process.pid));
        const started = [...tasks()].filter(([task]) => !before.has(task));
        const lowered = started.filter(([, nice]) => nice === Math.min(19, mainNice + readerNiceIncrement));
        assert.equal(
          lowered.length,
          2,
          `two reader threads at nice ${mainNice + readerNiceIncrement}; new threads: ${JSON.stringify(started)}`,
        );
        assert.equal(niceOf(String(process.pid)), before.get(String(process.pid)), 'the main thread keeps its priority');
        for (const [task, nice] of before)
          if (existsSync(`/proc/self/task/${task}`)) assert.equal(niceOf(task), nice, `thread ${task} unchanged`);
      } finally {
        await pool.close();
        await file.close();
      }
    },
  );

  test('reads run on the threads, queued beyond their number, each answered with its own rows', async () => {
    const file = await storeFile();
    const pool = new SqliteReaderPool(file.path, 2);
    try {
      const answers = await Promise.all(
        Array.from({ length: 7 }, (_, i) => pool.run<unknown[][][]>(one('select ?, id from organizations', [i]))),
      );
      assert.deepEqual(
        answers.map(([rows]) => rows),
        Array.from({ length: 7 }, (_, i) => [[i, 'acme']]),
      );
      assert.deepEqual(pool.load, { threads: 2, busy: 0, waiting: 0 });
    } finally {
      await pool.close();
      await file.close();
    }
  });

  test('prestarted threads wait idle (a server starts them after migrating) and serve the first reads', async () => {
    const file = await storeFile();
    const pool = new SqliteReaderPool(file.path, 2);
    try {
      pool.prestart();
      assert.deepEqual(pool.load, { threads: 2, busy: 0, waiting: 0 });
      assert.deepEqual(await pool.run(one('select id from organizations')), [[['acme']]]);
      assert.equal(pool.load.threads, 2);
    } finally {
      await pool.close();
      await file.close();
    }
  });

  test('a failing statement fails its read with SQLite’s code; the thread stays and serves the next', async () => {
    const file = await storeFile();
    const pool = new SqliteReaderPool(file.path, 1);
    try {
      await assert.rejects(pool.run(one('select * from no_such_table')), (error: Error & { code?: string }) => {
        assert.equal(error.code, 'SQLITE_ERROR');
        assert.equal(isStoreUnavailable(error), false);
        return true;
      });
      // Read-only: a write is refused, never run.
      await assert.rejects(
        pool.run({
          kind: 'statements',
          statements: [{ text: "update organizations set name = 'X' returning name", parameters: [], shape: 'rows' }],
        }),
        /readonly/,
      );
      assert.deepEqual(await pool.run(one('select name from organizations')), [[['Acme']]]);
      assert.equal(pool.load.threads, 1);
    } finally {
      await pool.close();
      await file.close();
    }
  });

  test('a thread that dies fails its read as unavailable (503), never a hang, and the next read starts a new one', async () => {
    const file = await storeFile();
    const moved = `${file.path}.away`;
    // The store file gone: the thread cannot open it and dies at start, with the read it was given.
    renameSync(file.path, moved);
    const pool = new SqliteReaderPool(file.path, 1);
    try {
      const reads = Array.from({ length: 3 }, () => pool.run(one('select id from organizations')));
      await assert.rejects(reads[0]!, (error: Error & { code?: string }) => {
        assert.equal(error.code, readerLostCode);
        assert.equal(isStoreUnavailable(error), true, 'answered 503 SERVICE_UNAVAILABLE');
        return true;
      });
      // The reads that waited behind it each got a new thread, which died the same way.
      for (const read of reads.slice(1)) await assert.rejects(read, { code: readerLostCode });
      renameSync(moved, file.path);
      assert.deepEqual(await pool.run(one('select id from organizations')), [[['acme']]]);
      assert.equal(pool.load.threads, 1);
    } finally {
      await pool.close();
      await file.close();
    }
  });

  test('closing lets the running read finish, fails the waiting ones, and ends every thread', async () => {
    const file = await storeFile();
    const pool = new SqliteReaderPool(file.path, 1);
    // About a million rows counted: long enough for the next read to wait behind it.
    const slow = pool.run<number[][][]>(
      one('with recursive r(n) as (select 1 union all select n + 1 from r where n < 1000000) select count(*) from r'),
    );
    const waiting = pool.run(one('select 1')).then(
      () => undefined,
      (error: Error & { code?: string }) => error.code,
    );
    await pool.close();
    assert.deepEqual(await slow, [[[1_000_000]]]);
    assert.equal(await waiting, readerLostCode);
    await assert.rejects(pool.run(one('select 1')), { code: readerLostCode });
    assert.deepEqual(pool.load, { threads: 0, busy: 0, waiting: 0 });
    await file.close();
  });

  test('an in-memory store has no reader threads; a store file has them unless SQLITE_READER_THREADS is 0', async () => {
    const memory = await openDatabase('file::memory:');
    const none = await openDatabase(createSqliteUrl(), { readerThreads: 0 });
    const some = await openDatabase(createSqliteUrl());
    try {
      assert.equal(memory.driver.dialect === 'sqlite' && memory.driver.readers, undefined);
      assert.equal(none.driver.dialect === 'sqlite' && none.driver.readers, undefined);
      assert.ok(some.driver.dialect === 'sqlite' && some.driver.readers instanceof SqliteReaderPool);
    } finally {
      for (const database of [memory, none, some]) await database.close();
    }
  });
});
