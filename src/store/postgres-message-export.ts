import type pg from 'pg';
import { to as copyTo } from 'pg-copy-streams';
import type { ExportBodies, ExportQuery } from '../domain/messages/export-types.js';
import { serviceUnavailable } from '../domain/errors.js';

/**
 * An export on PostgreSQL: one `COPY (select body ...) TO STDOUT` per thing, streamed on a connection of its own,
 * outside the store's pool. Reading pages through the pool made node-postgres' per-query objects survive into the
 * old generation at the export's pace (docs/decisions.md, Export); COPY hands over the socket's bytes as they
 * come, so what the export allocates is the bodies themselves, and they die young. Backpressure reaches the server:
 * while the consumer does not pull, pg-copy-streams pauses the socket and PostgreSQL waits on its send.
 *
 * The connection is held for the export's duration (no STORE_TIMEOUT_MS: a COPY of a million rows takes seconds),
 * so at most `limit` exports run at once per store; one more fails at once, before its first byte, as
 * SERVICE_UNAVAILABLE. Whoever consumes the bodies must end a stalled consumer (the REST route's stall timeout).
 */
export function postgresMessageExport(connect: () => pg.Client, limit: number): (query: ExportQuery) => ExportBodies {
  let running = 0;
  return async function* exportBodies(query) {
    if (running >= limit) throw serviceUnavailable(`${limit} exports are running, the most at once; retry later.`);
    running += 1;
    const client = connect();
    // A dedicated client is nobody's pool member: its 'error' (the server gone) must not crash the process; the
    // COPY in progress fails with it.
    client.on('error', () => undefined);
    try {
      await client.connect();
      for (const tuid of query.tuids) yield* copyBodies(client, copyText(client, tuid, query));
    } finally {
      running -= 1;
      // Ends the connection whether the COPY finished or not: a COPY left half-read cannot be resumed, and the
      // closed socket makes the server abandon it. (node-postgres destroys the socket when a query is active.)
      await client.end().catch(() => undefined);
    }
  };
}

/** The bodies one COPY sends, a batch per chunk of the socket, ended early (and the stream destroyed) by return(). */
async function* copyBodies(client: pg.Client, text: string): AsyncGenerator<readonly string[]> {
  const stream = client.query(copyTo(text));
  // node-postgres reports a connection lost mid-COPY to the stream by emitting 'error' even after the loop below
  // has let go of it (an export ended by its client); the loop sees failures through its own listener.
  stream.on('error', () => undefined);
  const decoder = new BinaryCopyDecoder();
  for await (const chunk of stream as AsyncIterable<Buffer>) {
    const bodies = decoder.decode(chunk);
    if (bodies.length > 0) yield bodies;
  }
  decoder.finish();
}

/**
 * The COPY statement for one thing. COPY runs as a simple query, which takes no parameters: the TUID is quoted by
 * the driver, the numbers are checked to be integers (the domain has validated them; this keeps the text safe even
 * if a caller did not).
 */
function copyText(client: pg.Client, tuid: string, query: ExportQuery): string {
  const conditions = [`tuid = ${client.escapeLiteral(tuid)}`];
  if (query.from !== undefined) conditions.push(`tsm_ts >= ${integer(query.from)}`);
  if (query.to !== undefined) conditions.push(`tsm_ts <= ${integer(query.to)}`);
  if (query.messageIds?.length) conditions.push(`tsm_id in (${query.messageIds.map(integer).join(', ')})`);
  if (query.eventIds?.length) conditions.push(`tsm_ev in (${query.eventIds.map(integer).join(', ')})`);
  return (
    `copy (select body from messages where ${conditions.join(' and ')} order by tsm_ts, tsm_id, fingerprint) ` + 'to stdout (format binary)'
  );
}

function integer(value: number): string {
  if (!Number.isSafeInteger(value)) throw new TypeError(`not an integer: ${value}`);
  return String(value);
}

// COPY's binary format: a signature, 32-bit flags and the length of a header extension; then per row a 16-bit
// field count (-1 ends the data) and per field a 32-bit length and that many bytes. A text value's bytes are its
// UTF-8 text (the client encoding), unescaped, unlike the text and CSV formats.
const signature = Buffer.from('PGCOPY\n\xff\r\n\0', 'latin1');
const headerLength = signature.length + 8;

/** Decodes COPY's binary output of one text column into its values, across chunks that split rows anywhere. */
export class BinaryCopyDecoder {
  private pending: Buffer | undefined;
  private headerRead = false;
  private ended = false;

  /** The values of the rows complete in what has arrived so far, in order; an incomplete row waits for more. */
  decode(chunk: Buffer): string[] {
    const buffer = this.pending ? Buffer.concat([this.pending, chunk]) : chunk;
    this.pending = undefined;
    let at = 0;
    if (!this.headerRead) {
      if (buffer.length < headerLength) return this.keep(buffer, 0);
      if (!buffer.subarray(0, signature.length).equals(signature)) throw new Error('COPY: not the binary format');
      at = headerLength + buffer.readUInt32BE(headerLength - 4);
      if (buffer.length < at) return this.keep(buffer, 0);
      this.headerRead = true;
    }
    const values: string[] = [];
    while (!this.ended && buffer.length - at >= 2) {
      const fields = buffer.readInt16BE(at);
      if (fields === -1) {
        this.ended = true;
        at += 2;
        break;
      }
      if (fields !== 1) throw new Error(`COPY: a row of ${fields} fields, expected 1`);
      if (buffer.length - at < 6) break;
      const length = buffer.readInt32BE(at + 2);
      if (length < 0) throw new Error('COPY: a null body');
      if (buffer.length - at - 6 < length) break;
      values.push(buffer.toString('utf8', at + 6, at + 6 + length));
      at += 6 + length;
    }
    return this.keep(buffer, at, values);
  }

  /** Throws unless the data ended as the format ends it: a COPY cut short is an error, not a shorter export. */
  finish(): void {
    if (!this.ended || this.pending) throw new Error('COPY: the data ended in the middle');
  }

  private keep(buffer: Buffer, at: number, values: string[] = []): string[] {
    if (at < buffer.length) this.pending = buffer.subarray(at);
    return values;
  }
}
