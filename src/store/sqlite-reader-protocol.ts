/** What a reader thread is started with. */
/** How many nice steps below the event loop the reader threads run (thread-priority.ts). */
export const readerNiceIncrement = 10;

export interface ReaderStart {
  /** The store's file; the reader opens its own read-only connection to it. */
  path: string;
}

/** One statement of a `statements` job, rows shaped as SqliteDirectReads shapes them. */
export interface ReaderStatement {
  text: string;
  parameters: readonly unknown[];
  /** `rows`: an object per row; `arrays`: an array of its columns; `firstColumn`: the first column alone. */
  shape: 'rows' | 'arrays' | 'firstColumn';
}

/**
 * A read a reader thread runs, in one snapshot: a series plan by name (a RollupPlanName of rollup-plans.ts, a string
 * here so that this file stays below the plans) with its arguments, or statements.
 */
export type ReaderJob =
  | { kind: 'plan'; name: string; args: readonly unknown[] }
  /** The rows of each statement, in order. */
  | { kind: 'statements'; statements: readonly ReaderStatement[] };

export type ReaderRequest =
  | { type: 'job'; id: number; job: ReaderJob }
  /** The answer to a plan's question (see KnownQuestion in read-plan.ts): the caller's count per etag, or null. */
  | { type: 'known'; id: number; counts: readonly (number | null)[] }
  /** Sent when no job runs: close every statement and the connection, then end the thread. */
  | { type: 'close' };

export type ReaderResponse =
  | { type: 'done'; id: number; value: unknown }
  | { type: 'failed'; id: number; message: string; code: string | undefined }
  /** A plan asks which of these etags the caller holds; its read transaction stays open until the answer. */
  | { type: 'known'; id: number; etags: readonly string[] };
