import { pino, type Logger } from 'pino';
import type { LogLevel } from '../config/config.js';

export type { Logger };

/**
 * Structured JSON logs on stdout. Authorization headers, cookies and anything named like a secret are redacted,
 * so a token or password never reaches a log line even when a request is logged whole.
 */
export function createLogger(level: LogLevel, destination?: NodeJS.WritableStream): Logger {
  return pino(
    {
      level,
      base: { service: 'thingdesk' },
      redact: {
        paths: [
          'req.headers.authorization',
          'req.headers.cookie',
          '*.password',
          '*.clientSecret',
          '*.client_secret',
          '*.token',
          '*.refreshToken',
          '*.accessToken',
        ],
        censor: '[redacted]',
      },
    },
    destination as pino.DestinationStream | undefined,
  );
}
