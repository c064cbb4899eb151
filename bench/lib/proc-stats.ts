/**
 * Memory and CPU of a process from /proc (Linux). The platform's peak RSS is a target, so it is sampled from
 * outside the process rather than reported by it: nothing the platform does can flatter the figure.
 */
import { readFileSync } from 'node:fs';

const clockTicksPerSecond = 100; // USER_HZ: 100 on every Linux this project runs on.

/** VmRSS and VmHWM (the kernel's own peak) in MiB, or undefined once the process is gone. */
export function readMemoryMiB(pid: number): { rss: number; hwm: number } | undefined {
  let status: string;
  try {
    status = readFileSync(`/proc/${pid}/status`, 'utf8');
  } catch {
    return undefined;
  }
  const kib = (field: string) => Number(new RegExp(`^${field}:\\s+(\\d+) kB`, 'm').exec(status)?.[1] ?? 0);
  return { rss: kib('VmRSS') / 1024, hwm: kib('VmHWM') / 1024 };
}

/** User + system CPU seconds the process has used so far, or undefined once it is gone. */
export function readCpuSeconds(pid: number): number | undefined {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  } catch {
    return undefined;
  }
  // The command name (field 2) may hold spaces; the fields after its closing parenthesis are fixed.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) / clockTicksPerSecond;
}

/**
 * Samples a process's RSS every `intervalMs` and keeps the peak. VmHWM (the kernel's exact peak, between samples
 * too) counts as well unless `highWaterMark` is false: for a process that did other work before (the bench
 * process itself) only the samples taken while measuring are meaningful.
 */
export class RssSampler {
  private peak = 0;
  private readonly timer: NodeJS.Timeout;

  constructor(
    private readonly pid: number,
    private readonly highWaterMark = true,
    intervalMs = 200,
  ) {
    this.timer = setInterval(() => this.sample(), intervalMs);
    this.timer.unref();
    this.sample();
  }

  /** The highest of the sampled VmRSS and the last VmHWM read, in MiB. */
  get peakMiB(): number {
    return Math.round(this.peak * 10) / 10;
  }

  sample(): void {
    const memory = readMemoryMiB(this.pid);
    if (memory) this.peak = Math.max(this.peak, memory.rss, this.highWaterMark ? memory.hwm : 0);
  }

  stop(): number {
    this.sample();
    clearInterval(this.timer);
    return this.peakMiB;
  }
}

/**
 * Resolves once the process has used less than `busyShare` of a core over `windowMs` (at most `timeoutMs`): a
 * platform that says it listens still loads its threads and compiles for a few seconds, and a short measured window
 * that starts then measures its start-up, not its steady state.
 */
export async function untilQuiet(pid: number, { busyShare = 0.15, windowMs = 500, timeoutMs = 20_000 } = {}): Promise<void> {
  const end = Date.now() + timeoutMs;
  let before = readCpuSeconds(pid);
  while (before !== undefined && Date.now() < end) {
    await new Promise((resolve) => setTimeout(resolve, windowMs));
    const now = readCpuSeconds(pid);
    if (now === undefined || now - before < (busyShare * windowMs) / 1000) return;
    before = now;
  }
}
