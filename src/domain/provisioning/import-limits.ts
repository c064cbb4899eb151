import { AppError } from '../errors.js';

/** What one import request may hold (SPEC section 12): 100,000 rows or 20 MiB. Larger is PAYLOAD_TOO_LARGE (413). */
export const importLimits = { maxRows: 100_000, maxBytes: 20 * 1024 * 1024 } as const;

/** The formats an import reads: CSV with a header row (RFC 4180, UTF-8 with or without BOM), or NDJSON. */
export type ImportFormat = 'csv' | 'ndjson';

export function tooManyBytes(): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `An import may hold at most 20 MiB (${importLimits.maxBytes} bytes); split the file.`);
}

export function tooManyRows(): AppError {
  return new AppError('PAYLOAD_TOO_LARGE', `An import may hold at most ${importLimits.maxRows} rows; split the file.`);
}
