import { Writable } from 'node:stream';
import type { LogLevel } from '../../src/config/config.js';
import { createLogger } from '../../src/observability/logger.js';

/** pino's level number for `error`: entries at or above it are what an operator is paged for. */
export const errorLevel = 50;

/** Every log line of a platform given `logger` (JSON, one entry a line), at `level` (trace unless told). */
export class CapturedLogs {
  readonly lines: string[] = [];
  readonly stream = new Writable({
    write: (chunk: Buffer, _encoding, done) => {
      this.lines.push(
        ...String(chunk)
          .split('\n')
          .filter((line) => line !== ''),
      );
      done();
    },
  });
  readonly logger;

  constructor(level: LogLevel = 'trace') {
    this.logger = createLogger(level, this.stream);
  }

  /** The lines logged at error level or above. */
  errors(): string[] {
    return this.lines.filter((line) => (JSON.parse(line) as { level: number }).level >= errorLevel);
  }
}
