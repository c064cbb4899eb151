/**
 * The attacker of `bench:soak --hostile` in a process of its own. In the soak's own process it shared one event loop
 * with the readers and the probe gateway whose latencies the soak measures: at some 500 hostile requests a second, part
 * of the slowdown the soak reported as the platform's was the client's own queueing. Here the attacker only competes
 * with the platform for the host's cores, as a real one on another machine would not even do.
 *
 * Protocol over the IPC channel: the parent sends `{start: HostileStart}` once, `{tokens}` whenever it refreshes the
 * access tokens, and `{stop: true}`; the child answers `{counts}` (the attack counts as plain objects) and exits.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { tsxImportArgs } from '../lib/node-entry.js';
import { startHostile, type AttackCounts, type AttackName, type HostileClient, type HostileOptions } from './hostile.js';

export type HostileStart = Omit<HostileOptions, 'accessToken' | 'viewerToken'> & { tokens: Tokens };

interface Tokens {
  access: string;
  viewer: string;
}

type SerializedCounts = [AttackName, { attempts: number; outcomes: [string, number][] }][];

type ToChild = { start: HostileStart } | { tokens: Tokens } | { stop: true };

/** Starts the attacker in a child process; the returned client's counts are filled in when stop() resolves. */
export function forkHostile(start: HostileStart): HostileClient & { setTokens(tokens: Tokens): void } {
  const child: ChildProcess = fork(fileURLToPath(import.meta.url), [], { execArgv: [...tsxImportArgs], stdio: 'inherit' });
  const send = (message: ToChild) => child.connected && child.send(message);
  send({ start });
  const counts = new Map<AttackName, AttackCounts>();
  const finished = new Promise<void>((resolve, reject) => {
    child.on('message', (message: { counts: SerializedCounts }) => {
      for (const [name, entry] of message.counts) counts.set(name, { attempts: entry.attempts, outcomes: new Map(entry.outcomes) });
      resolve();
    });
    child.once('exit', (code) => (code === 0 ? resolve() : reject(new Error(`the attacker's process exited with ${code}`))));
  });
  return {
    counts,
    setTokens: (tokens) => send({ tokens }),
    async stop() {
      send({ stop: true });
      await finished;
    },
  };
}

function runChild(): void {
  let client: HostileClient | undefined;
  let tokens: Tokens = { access: '', viewer: '' };
  process.on('message', (message: ToChild) => {
    if ('start' in message) {
      tokens = message.start.tokens;
      client = startHostile({ ...message.start, accessToken: () => tokens.access, viewerToken: () => tokens.viewer });
    } else if ('tokens' in message) {
      tokens = message.tokens;
    } else if (client) {
      void client.stop().then(() => {
        const counts: SerializedCounts = [...client!.counts].map(([name, entry]) => [
          name,
          { attempts: entry.attempts, outcomes: [...entry.outcomes] },
        ]);
        process.send!({ counts }, () => process.exit(0));
      });
    }
  });
}

if (process.send && process.argv[1] === fileURLToPath(import.meta.url)) runChild();
