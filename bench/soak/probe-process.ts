/**
 * The probe gateway of `bench:soak` (probe.ts) in a process of its own. In the soak's process it shared one event
 * loop with the simulated fleet (2,000 uplinks a second) and the eight readers, about three quarters of a core:
 * a PUBACK that arrived while that loop was busy waited for it, and the wait was reported as the platform's. Here
 * each publish-to-PUBACK time is measured on an idle loop and sent to the soak, which files it under the phase
 * running when it arrives (as it does for the readers' answers).
 *
 * Protocol over the IPC channel: the parent sends `{start: ProbeStart}` once and `{stop: true}`; the child answers
 * `{ready: true}` once connected, `{ms}` per acknowledged publish, `{errors}` when stopped, and exits.
 */
import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tsxImportArgs } from '../lib/node-entry.js';
import { startPublishProbe, type PublishProbe } from './probe.js';

export type ProbeStart = Omit<Parameters<typeof startPublishProbe>[0], 'record'>;

type ToChild = { start: ProbeStart } | { stop: true };
type FromChild = { ready: true } | { ms: number } | { errors: number } | { failed: string };

/** Starts the probe in a child process; resolves once it is connected. `errors` is filled in when stop() resolves. */
export async function forkPublishProbe(start: ProbeStart, record: (milliseconds: number) => void): Promise<PublishProbe> {
  const child = fork(fileURLToPath(import.meta.url), [], { execArgv: [...tsxImportArgs], stdio: 'inherit' });
  const probe: PublishProbe = { errors: 0, stop: async () => undefined };
  let ready!: () => void;
  let failed!: (error: Error) => void;
  const connected = new Promise<void>((resolve, reject) => ((ready = resolve), (failed = reject)));
  const stopped = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  child.on('message', (message: FromChild) => {
    if ('ms' in message) record(message.ms);
    else if ('ready' in message) ready();
    else if ('errors' in message) probe.errors = message.errors;
    else failed(new Error(`the probe could not start: ${message.failed}`));
  });
  child.once('exit', (code) => failed(new Error(`the probe's process exited with ${code}`)));
  child.send({ start } satisfies ToChild);
  await connected;
  probe.stop = async () => {
    if (child.connected) child.send({ stop: true } satisfies ToChild);
    await stopped;
  };
  return probe;
}

function runChild(): void {
  let probe: PublishProbe | undefined;
  const send = (message: FromChild, then: () => void = () => undefined) => process.send!(message, then);
  process.on('message', (message: ToChild) => {
    if ('start' in message) {
      startPublishProbe({ ...message.start, record: (ms) => send({ ms }) }).then(
        (started) => ((probe = started), send({ ready: true })),
        (error: Error) => send({ failed: error.message }, () => process.exit(1)),
      );
    } else if (probe) {
      const running = probe;
      void running.stop().then(() => send({ errors: running.errors }, () => process.exit(0)));
    }
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) runChild();
