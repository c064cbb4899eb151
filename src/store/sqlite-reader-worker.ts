/**
 * A SQLite reader thread (see sqlite-reader-pool.ts): its own read-only connection to the store file, on which it
 * runs one read at a time, each in one read transaction, and answers plain values (cloned to the main thread).
 * Before the thread ends (a 'close' message), the connection closes, and with it every statement it prepared:
 * a thread stopped with statements still open aborts the process on newer Node versions (better-sqlite3 12).
 */
import { parentPort, workerData } from 'node:worker_threads';
import type SqliteDatabase from 'better-sqlite3';
import { SqliteBinding } from './sqlite-binding.js';
import { lowerThreadPriority } from './thread-priority.js';
import type { Statement as PlanStatement } from './rollups/read-plan.js';
import { rollupPlans, startPlan } from './rollups/rollup-plans.js';
import {
  readerNiceIncrement,
  type ReaderJob,
  type ReaderRequest,
  type ReaderResponse,
  type ReaderStart,
  type ReaderStatement,
} from './sqlite-reader-protocol.js';

const port = parentPort!;
const { path } = workerData as ReaderStart;
// Heavy reads give way to the event loop and the uplink writer when cores are contended (thread-priority.ts).
lowerThreadPriority(readerNiceIncrement);
// The store exists and is migrated before any read is sent here; a missing file is a mistake, not a new store.
const connection = new SqliteBinding(path, { readonly: true, fileMustExist: true });
// A reader never waits for the write lock; busy_timeout covers the moments WAL recovery or a checkpoint's RESTART
// holds the log's index. A small page cache each: the main connection keeps its own for the hot reads.
connection.pragma('busy_timeout = 5000');
connection.pragma('cache_size = -4096');
connection.pragma('temp_store = memory');
const plans = rollupPlans('sqlite');

// Distinct texts kept prepared (a plan's texts are the store's own; only `in` lists could vary, and none do here).
const statementCacheSize = 200;
const statements = new Map<string, SqliteDatabase.Statement>();
function prepared(text: string, shape: ReaderStatement['shape']): SqliteDatabase.Statement {
  const key = `${shape}\u0000${text}`;
  let statement = statements.get(key);
  if (!statement) {
    statement = connection.prepare(text);
    if (shape === 'firstColumn') statement.pluck();
    if (shape === 'arrays') statement.raw(true);
    if (statements.size >= statementCacheSize) statements.delete(statements.keys().next().value!);
    statements.set(key, statement);
  }
  return statement;
}

let answerKnown: ((counts: readonly (number | null)[]) => void) | undefined;

/** Runs a plan in one read transaction, asking the main thread its questions (the transaction stays open meanwhile). */
async function runPlan(id: number, job: Extract<ReaderJob, { kind: 'plan' }>): Promise<unknown> {
  const steps = startPlan(plans, job.name, job.args);
  connection.exec('begin');
  try {
    let step = steps.next();
    while (!step.done) {
      const value = step.value;
      if ('known' in value) {
        const counts = await new Promise<readonly (number | null)[]>((resolve) => {
          answerKnown = resolve;
          port.postMessage({ type: 'known', id, etags: value.known } satisfies ReaderResponse);
        });
        step = steps.next(counts);
      } else {
        const statement: PlanStatement = value;
        step = steps.next(prepared(statement.text, 'arrays').all(...statement.parameters));
      }
    }
    return step.value;
  } finally {
    if (connection.inTransaction) connection.exec('commit');
  }
}

function runStatements(job: Extract<ReaderJob, { kind: 'statements' }>): unknown[][] {
  const all = () => job.statements.map((statement) => prepared(statement.text, statement.shape).all(...statement.parameters));
  return job.statements.length === 1 ? all() : connection.transaction(all).deferred();
}

async function run(id: number, job: ReaderJob): Promise<void> {
  let response: ReaderResponse;
  try {
    response = { type: 'done', id, value: job.kind === 'plan' ? await runPlan(id, job) : runStatements(job) };
  } catch (error) {
    const { message, code } = error as { message?: string; code?: string };
    response = { type: 'failed', id, message: message ?? String(error), code };
  }
  port.postMessage(response);
}

port.on('message', (request: ReaderRequest) => {
  if (request.type === 'close') {
    statements.clear();
    connection.close();
    port.close();
  } else if (request.type === 'known') {
    const answer = answerKnown;
    answerKnown = undefined;
    answer?.(request.counts);
  } else void run(request.id, request.job);
});
