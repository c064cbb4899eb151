import { hash, verify } from '@node-rs/argon2';
import { AppError } from '../errors.js';

/**
 * What password work needs: an argon2id hash and a verify (false for a malformed hash). @node-rs/argon2 as it is
 * (`nodeArgon2`, which a test may replace to hold the cap full), `PasswordHashing` around it, or its patient view.
 */
export interface PasswordHasher {
  hash(password: string): Promise<string>;
  verify(storedHash: string, password: string): Promise<boolean>;
}

// OWASP's recommended minimum for argon2id (19 MiB, 2 iterations, 1 lane): ~12 ms per hash on the target machines.
// algorithm 2 is Argon2id (the package's const enum cannot be imported under verbatimModuleSyntax).
const argon2Options = { algorithm: 2, memoryCost: 19456, timeCost: 2, parallelism: 1 } as const;

export const nodeArgon2: PasswordHasher = {
  hash: (password) => hash(password, argon2Options),
  verify: async (storedHash, password) => {
    try {
      return await verify(storedHash, password);
    } catch {
      return false;
    }
  },
};

/** Argon2 operations running at once in this process, and how many more may wait for a turn before refusals. */
export interface PasswordHashingLimits {
  concurrency: number;
  queue: number;
}

/** What a caller refused for lack of a turn is told to wait before retrying (seconds). */
export const passwordHashingRetryAfterS = 1;

/**
 * Every argon2 hash and verify of the process passes here: at most `concurrency` run at once (each takes a core for
 * ~12 ms, on libuv's pool, outside the event loop but not outside the machine), up to `queue` more wait in arrival
 * order, and past that the work is refused at once with SERVICE_UNAVAILABLE (retryable, `retryAfterS`), so that a
 * flood of anonymous sign-ins from many addresses costs a bounded share of the CPU, not every core.
 *
 * Work that must not be refused (an MQTT CONNECT of the fleet, which its own throttle bounds, and which a refusal
 * would only make reconnect again) asks `patient()`: it shares the same turns but waits beyond `queue`.
 */
export class PasswordHashing {
  private running = 0;
  private readonly waiting: (() => void)[] = [];
  /** Of `waiting`, those that would have been refused past `queue` (the patient ones do not use up the queue). */
  private queued = 0;
  private readonly patientView: PasswordHasher;

  constructor(
    private readonly limits: PasswordHashingLimits,
    private readonly argon2: PasswordHasher = nodeArgon2,
    /** Told of each operation run or refused (the composition root counts them in /metrics). */
    private readonly observe: (outcome: 'run' | 'refused') => void = () => undefined,
  ) {
    this.patientView = {
      hash: (password) => this.turn(true, () => this.argon2.hash(password)),
      verify: (storedHash, password) => this.turn(true, () => this.argon2.verify(storedHash, password)),
    };
  }

  /** An argon2id hash of the password. */
  hash(password: string): Promise<string> {
    return this.turn(false, () => this.argon2.hash(password));
  }

  /** Whether the password matches the stored argon2 hash (false for a malformed hash). */
  verify(storedHash: string, password: string): Promise<boolean> {
    return this.turn(false, () => this.argon2.verify(storedHash, password));
  }

  /** The same turns, for work that waits however long the queue is instead of being refused. */
  patient(): PasswordHasher {
    return this.patientView;
  }

  /** Operations running now and waiting for a turn (tests, metrics). */
  get load(): { running: number; waiting: number } {
    return { running: this.running, waiting: this.waiting.length };
  }

  private async turn<T>(patient: boolean, work: () => Promise<T>): Promise<T> {
    if (this.running >= this.limits.concurrency) {
      if (!patient && this.queued >= this.limits.queue) {
        this.observe('refused');
        throw new AppError('SERVICE_UNAVAILABLE', 'Too many passwords are being checked right now; retry in a second.', [], {
          retryAfterS: passwordHashingRetryAfterS,
        });
      }
      if (!patient) this.queued += 1;
      await new Promise<void>((resolve) => this.waiting.push(resolve));
      if (!patient) this.queued -= 1;
    } else {
      this.running += 1;
    }
    this.observe('run');
    try {
      return await work();
    } finally {
      // The turn passes straight to the next waiter (running stays the same), else it is given back.
      const next = this.waiting.shift();
      if (next) next();
      else this.running -= 1;
    }
  }
}

/** Without a gate (the CLI, one command at a time): argon2 as it is. */
export const ungatedPasswordHasher: PasswordHasher = nodeArgon2;
