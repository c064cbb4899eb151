import { readFileSync } from 'node:fs';

/**
 * The longest time the event loop was held by this process's own main thread: between two ticks of a 10 ms timer, the
 * CPU time the main thread used (Linux: /proc/self/task/<pid>/stat, in clock ticks of 10 ms). A wall-clock stall also
 * grows when the host is busy and the thread waits for a core; the thread's CPU time does not, so a bound on it fails
 * only when our code holds the loop. Where /proc is missing the wall-clock gap is answered instead.
 */
export interface StallWatch {
  stop(): { cpuMs: number; wallMs: number };
}

const statPath = `/proc/self/task/${process.pid}/stat`;
const tickMs = 10; // USER_HZ is 100 on every Linux Node.js supports

function mainThreadCpuMs(): number | undefined {
  try {
    // Fields after the command name (which may hold spaces, inside parentheses): utime is the 12th, stime the 13th.
    const stat = readFileSync(statPath, 'utf8');
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return (Number(fields[11]) + Number(fields[12])) * tickMs;
  } catch {
    return undefined;
  }
}

export function watchMainThreadStalls(): StallWatch {
  let lastWall = performance.now();
  let lastCpu = mainThreadCpuMs();
  let cpuMs = 0;
  let wallMs = 0;
  const timer = setInterval(() => {
    const wall = performance.now();
    const cpu = mainThreadCpuMs();
    wallMs = Math.max(wallMs, wall - lastWall);
    cpuMs = Math.max(cpuMs, cpu === undefined || lastCpu === undefined ? wall - lastWall : cpu - lastCpu);
    lastWall = wall;
    lastCpu = cpu;
  }, tickMs);
  return {
    stop() {
      clearInterval(timer);
      return { cpuMs, wallMs };
    },
  };
}
