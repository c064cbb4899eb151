/**
 * Whether an error thrown by a store call means the store cannot be reached right now (PostgreSQL stopped,
 * restarting, the network gone, the pool unable to connect in time) rather than a bug or a bad request. Such a
 * failure is temporary: the transports answer it with SERVICE_UNAVAILABLE (503), and the pool reconnects by itself
 * when the server is back. The one place that knows what the drivers throw for it.
 */
export function isStoreUnavailable(error: unknown): boolean {
  for (let current = error, depth = 0; current instanceof Error && depth < 5; depth++) {
    if (isConnectionFailure(current)) return true;
    // Node's happy-eyeballs connect fails with an AggregateError of the attempts, and drivers wrap with `cause`.
    if (current instanceof AggregateError && current.errors.some((inner) => inner instanceof Error && isConnectionFailure(inner)))
      return true;
    current = current.cause;
  }
  return false;
}

/**
 * A SQLite read whose reader thread died under it, or that the closing store dropped (sqlite-reader-pool.ts): the
 * same read on a new thread would succeed.
 */
export const readerLostCode = 'ERR_SQLITE_READER_LOST';

// Socket errors of a connection that could not be made or was lost.
const socketCodes = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

// PostgreSQL SQLSTATEs: admin_shutdown, crash_shutdown, cannot_connect_now (starting up or shutting down),
// too_many_connections, query_canceled (STORE_TIMEOUT_MS reached on the server), disk_full. Class 08 (connection
// exception) is matched as a whole.
const serverCodes = new Set(['57P01', '57P02', '57P03', '53300', '57014', '53100']);

// node-postgres reports a lost or timed-out connection by message only.
const driverMessages = [
  /^Connection terminated/,
  /timeout exceeded when trying to connect/,
  /Client has encountered a connection error and is not queryable/,
  /^Query read timeout$/,
];

function isConnectionFailure(error: Error): boolean {
  const code = (error as { code?: unknown }).code;
  if (
    typeof code === 'string' &&
    (code === readerLostCode || socketCodes.has(code) || serverCodes.has(code) || /^08[0-9A-Z]{3}$/.test(code))
  )
    return true;
  return driverMessages.some((pattern) => pattern.test(error.message));
}

// SQLite's: the write lock held past busy_timeout, the disk full or failing. The same batch would succeed later.
const sqliteTemporaryCodes = /^SQLITE_(BUSY|LOCKED|FULL|IOERR)/;

/**
 * Whether a failed write would succeed later unchanged (an outage, a lock held too long, a full disk), as opposed
 * to a failure of the data itself. The uplink batcher retries the former and isolates the payload on the latter.
 */
export function isTemporaryStoreFailure(error: unknown): boolean {
  if (isStoreUnavailable(error)) return true;
  const code = (error as { code?: unknown } | null)?.code;
  return typeof code === 'string' && sqliteTemporaryCodes.test(code);
}
