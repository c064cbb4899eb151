/**
 * Child processes of a benchmark run. Every child is registered here so that one `killAll()` (in a finally, and
 * on SIGINT/SIGTERM) ends them all, whatever failed: a benchmark that leaves a broker or a platform behind would
 * distort the next run on a 2-core machine.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { createWriteStream } from 'node:fs';
import { join } from 'node:path';

export interface ChildHandle {
  readonly name: string;
  readonly child: ChildProcess;
  readonly pid: number;
  /** Everything the child wrote so far (stdout and stderr), for parsing and for error messages. */
  output(): string;
  /** Resolves once the child is gone. */
  readonly exited: Promise<void>;
  /** SIGTERM, then SIGKILL after `graceMs`; resolves when the child is gone. */
  stop(graceMs?: number): Promise<void>;
}

const children = new Set<ChildHandle>();
// Output is kept for diagnostics only; a chatty child must not grow the bench process without bound.
const maxOutputChars = 256 * 1024;

export function spawnChild(
  name: string,
  command: string,
  args: readonly string[],
  options: { env: NodeJS.ProcessEnv; cwd?: string },
): ChildHandle {
  const child = spawn(command, args, { env: options.env, cwd: options.cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  if (child.pid === undefined) throw new Error(`could not start ${name}`);
  let output = '';
  const append = (chunk: Buffer) => {
    output += chunk.toString('utf8');
    if (output.length > maxOutputChars) output = output.slice(-maxOutputChars / 2);
  };
  child.stdout!.on('data', append);
  child.stderr!.on('data', append);
  // BENCH_CHILD_LOG_DIR keeps each child's whole output (the in-memory copy is cut), to read its errors afterwards.
  if (process.env.BENCH_CHILD_LOG_DIR) {
    const file = createWriteStream(join(process.env.BENCH_CHILD_LOG_DIR, `${name}-${child.pid}.log`));
    child.stdout!.pipe(file, { end: false });
    child.stderr!.pipe(file, { end: false });
    child.once('close', () => file.end());
  }
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  const handle: ChildHandle = {
    name,
    child,
    pid: child.pid,
    output: () => output,
    exited,
    async stop(graceMs = 5000) {
      if (child.exitCode === null && child.signalCode === null) {
        child.kill('SIGTERM');
        const timer = setTimeout(() => child.kill('SIGKILL'), graceMs);
        await exited;
        clearTimeout(timer);
      }
      children.delete(handle);
    },
  };
  children.add(handle);
  void exited.then(() => children.delete(handle));
  return handle;
}

/** Waits until `pattern` matches the child's output; throws with the output if it exits or times out first. */
export async function waitForOutput(handle: ChildHandle, pattern: RegExp, timeoutMs = 60_000): Promise<RegExpExecArray> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const match = pattern.exec(handle.output());
    if (match) return match;
    if (handle.child.exitCode !== null || handle.child.signalCode !== null)
      throw new Error(`${handle.name} exited before it was ready:\n${handle.output().slice(-4000)}`);
    if (Date.now() > deadline) throw new Error(`${handle.name} was not ready within ${timeoutMs} ms:\n${handle.output().slice(-4000)}`);
    await sleep(50);
  }
}

/** Stops every child still running (each by its own pid). Safe to call more than once. */
export async function killAll(): Promise<void> {
  await Promise.all([...children].map((handle) => handle.stop(3000)));
}

/**
 * SIGINT/SIGTERM: stop the children, run `cleanup` (scratch schemas, broker sessions), then exit 130. A second
 * signal exits at once.
 */
export function killChildrenOnSignal(cleanup: () => Promise<void>): void {
  const onSignal = () => {
    process.once('SIGINT', () => process.exit(130)).once('SIGTERM', () => process.exit(130));
    process.stderr.write('\nbench: interrupted, stopping child processes\n');
    void killAll()
      .then(cleanup)
      .finally(() => process.exit(130));
  };
  process.once('SIGINT', onSignal).once('SIGTERM', onSignal);
}

export function sleep(milliseconds: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, milliseconds));
}
