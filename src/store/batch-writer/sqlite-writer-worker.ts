/**
 * The uplink writer thread (see sqlite-writer-thread.ts): its own connection to the store file, the batch
 * transaction, and nothing else. A batch is answered only after its COMMIT, so an acknowledgement that waits for
 * the answer still follows the commit. A failed batch is rolled back and answered as failed; the thread stays.
 */
import { parentPort, workerData } from 'node:worker_threads';
import { SqliteBinding } from '../sqlite-binding.js';
import { tuneSqliteConnection } from '../sqlite-pragmas.js';
import { prepareSqliteExpiry } from '../retention/sqlite-expiry.js';
import { prepareSqliteBatch } from './sqlite-batch-transaction.js';
import { prepareSqliteStatements } from './sqlite-writer-statements.js';
import type { WriterRequest, WriterResponse, WriterStart } from './sqlite-writer-protocol.js';

const port = parentPort!;
const { path } = workerData as WriterStart;
// The store exists and is migrated before the writer starts; a missing file is a mistake, not a new store.
const connection = new SqliteBinding(path, { fileMustExist: true });
tuneSqliteConnection(connection, 'writer');
const runBatch = prepareSqliteBatch(connection);
const runExpiry = prepareSqliteExpiry(connection);
const runStatements = prepareSqliteStatements(connection);

port.on('message', (request: WriterRequest) => {
  if (request.type === 'close') {
    connection.close();
    port.close();
    return;
  }
  let response: WriterResponse;
  try {
    response =
      request.type === 'expire'
        ? { type: 'expired', id: request.id, removed: runExpiry(request.job) }
        : request.type === 'statements'
          ? { type: 'ran', id: request.id, rows: runStatements(request.statements) }
          : { type: 'done', id: request.id, result: runBatch(request.batch, request.deadLetters) };
  } catch (error) {
    const { message, code } = error as { message?: string; code?: string };
    response = { type: 'failed', id: request.id, message: message ?? String(error), code };
  }
  port.postMessage(response, response.type === 'done' ? [response.result.outcomes.buffer as ArrayBuffer] : []);
});
