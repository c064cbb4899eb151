import { readlinkSync } from 'node:fs';
import { getPriority, setPriority } from 'node:os';

/**
 * Lowers the CPU priority of the calling worker thread by `increment` nice steps (at most to 19), on Linux, where
 * the nice value belongs to each thread: setpriority(2) given a thread's id changes that thread alone, and
 * /proc/thread-self names it. Elsewhere, or where the kernel refuses, the thread keeps the priority it inherited.
 *
 * Why: on a small host the heavy reads' threads and the event loop share few cores. A reader busy for seconds
 * (a Viewer's aliased series, an export) then takes a core the event loop needs to acknowledge uplinks and answer
 * light requests; at nice +10 the kernel gives the reader about a tenth of a contended core and all of an idle one,
 * so heavy reads slow down under contention rather than everything else (issue 32's hostile soak).
 */
export function lowerThreadPriority(increment: number): void {
  let threadId: number;
  try {
    threadId = Number(readlinkSync('/proc/thread-self').split('/').pop());
  } catch {
    return;
  }
  // Never the process's main thread: its id is the process id, and a wrong id would renice the whole process.
  if (!Number.isInteger(threadId) || threadId <= 0 || threadId === process.pid) return;
  try {
    setPriority(threadId, Math.min(19, getPriority(threadId) + increment));
  } catch {
    // Not allowed here (a sandbox without setpriority): the reads run at the inherited priority.
  }
}
