import { createHmac } from 'node:crypto';
import { sameSecret } from '../domain/auth/constant-time.js';
import type { Problem } from '../catalog/types.js';
import type { StoredMessage } from '../domain/messages/message-types.js';

/**
 * A batch on the relay topic, as one MQTT payload: a signature line, one line of JSON (the origin, when it was
 * sent, and each message's envelope with its body's length), then the bodies one after the other, as stored.
 * Carrying the bodies outside the JSON spares escaping them on one side and unescaping them on the other, which
 * was most of the relay's cost.
 *
 * The signature is HMAC-SHA256, under the key the instances share through the store (cluster-secrets-store.ts),
 * of the topic and everything after the signature line: a batch is only taken from someone who holds the key, for
 * the topic it was published on (so one instance's batch cannot be replayed as another's), and whole.
 */
export interface RelayBatch {
  origin: string;
  /** When the origin sent it (its clock, ms). */
  sentAt: number;
  messages: StoredMessage[];
}

/** One packet's payload, and how many messages it carries. */
export interface RelayPayload {
  bytes: Buffer;
  messages: number;
}

/** The bytes a PUBLISH packet adds to its payload besides the topic: fixed header, topic length, packet id, properties. */
const publishOverheadBytes = 16;
/** A signature line: 43 characters of base64url, then a line break. */
const signatureBytes = 44;

/**
 * The payloads relaying `messages` on `topic`, each fitting a packet of `maxPacketBytes`, in stored order (a thing's
 * messages stay in the order given). A message too large for any packet on its own is left out and returned in
 * `unsent`: the other instances see a gap in its thing's seqs and skip it (stored-order.ts).
 */
export function encodeBatches(
  key: Buffer,
  topic: string,
  batch: Omit<RelayBatch, 'messages'>,
  messages: readonly StoredMessage[],
  maxPacketBytes: number,
): { payloads: RelayPayload[]; unsent: StoredMessage[] } {
  const headStart = `{"o":${JSON.stringify(batch.origin)},"t":${batch.sentAt},"m":[`;
  const fixed = publishOverheadBytes + Buffer.byteLength(topic) + signatureBytes + Buffer.byteLength(headStart) + '\n'.length + ']}'.length;
  const budget = maxPacketBytes - fixed;
  const payloads: RelayPayload[] = [];
  const unsent: StoredMessage[] = [];
  let envelopes: string[] = [];
  let bodies: string[] = [];
  let used = 0;
  const flush = () => {
    if (envelopes.length === 0) return;
    const bytes = sign(key, topic, `${headStart}${envelopes.join(',')}]}\n${bodies.join('')}`);
    payloads.push({ bytes, messages: envelopes.length });
    envelopes = [];
    bodies = [];
    used = 0;
  };
  for (const message of messages) {
    const envelope = JSON.stringify(toWire(message));
    // JSON.stringify never writes a raw line break, so the first one after the signature ends the head.
    const size = Buffer.byteLength(envelope) + 1 + Buffer.byteLength(message.body);
    if (size > budget) {
      unsent.push(message);
      continue;
    }
    if (used + size > budget) flush();
    envelopes.push(envelope);
    bodies.push(message.body);
    used += size;
  }
  flush();
  return { payloads, unsent };
}

/** The batch of a payload received on `topic`, or why it is refused. */
export function decodeBatch(key: Buffer, topic: string, payload: Buffer): RelayBatch | { refused: string } {
  const signed = payload.indexOf(0x0a);
  if (signed !== signatureBytes - 1) return { refused: 'no signature' };
  const expected = signatureOf(key, topic, payload.subarray(signed + 1));
  const given = payload.subarray(0, signed);
  if (!sameSecret(given, expected)) return { refused: 'bad signature' };
  const text = payload.toString('utf8', signed + 1);
  const end = text.indexOf('\n');
  if (end < 0) return { refused: 'unreadable' };
  let head: RelayHead;
  try {
    head = JSON.parse(text.slice(0, end)) as RelayHead;
  } catch {
    return { refused: 'unreadable' };
  }
  if (typeof head !== 'object' || head === null || typeof head.o !== 'string' || !Number.isSafeInteger(head.t) || !Array.isArray(head.m))
    return { refused: 'unreadable' };
  let offset = end + 1;
  const messages: StoredMessage[] = [];
  for (const wire of head.m) {
    if (!isWire(wire)) return { refused: 'unreadable' };
    const body = text.slice(offset, offset + wire[9]);
    offset += wire[9];
    messages.push(fromWire(wire, body));
  }
  return offset === text.length ? { origin: head.o, sentAt: head.t, messages } : { refused: 'unreadable' };
}

function sign(key: Buffer, topic: string, content: string): Buffer {
  const body = Buffer.from(content);
  return Buffer.concat([Buffer.from(`${signatureOf(key, topic, body)}\n`), body]);
}

function signatureOf(key: Buffer, topic: string, content: Buffer): string {
  return createHmac('sha256', key).update(topic).update('\n').update(content).digest('base64url');
}

interface RelayHead {
  o: string;
  t: number;
  m: unknown[];
}

type WireEnvelope = [
  organizationId: string,
  tuid: string,
  tsmId: number,
  tsmEv: number | null,
  tsmTs: number,
  gatewayTuid: string | null,
  fingerprint: string,
  groupId: string | null,
  receivedAt: number,
  bodyLength: number,
  problems: readonly Problem[] | 0,
  /** 0: none (seqs start at 1). */
  seq: number,
  previousAt: number | null,
];

function toWire(m: StoredMessage): WireEnvelope {
  return [
    m.organizationId,
    m.tuid,
    m.tsmId,
    m.tsmEv,
    m.tsmTs,
    m.gatewayTuid,
    m.fingerprint,
    m.groupId,
    m.receivedAt,
    m.body.length,
    m.problems.length > 0 ? m.problems : 0,
    m.seq ?? 0,
    m.previousAt ?? null,
  ];
}

/** The envelope's shape, checked field by field: a signed batch comes from a peer, but a peer of another version may differ. */
function isWire(wire: unknown): wire is WireEnvelope {
  if (!Array.isArray(wire) || wire.length !== 13) return false;
  const [organizationId, tuid, tsmId, tsmEv, tsmTs, gatewayTuid, fingerprint, groupId, receivedAt, bodyLength, problems, seq, previousAt] =
    wire as unknown[];
  const text = (value: unknown) => typeof value === 'string';
  const orNull = (value: unknown, check: (value: unknown) => boolean) => value === null || check(value);
  const count = (value: unknown) => Number.isSafeInteger(value) && (value as number) >= 0;
  return (
    text(organizationId) &&
    text(tuid) &&
    typeof tsmId === 'number' &&
    orNull(tsmEv, (v) => typeof v === 'number') &&
    typeof tsmTs === 'number' &&
    orNull(gatewayTuid, text) &&
    text(fingerprint) &&
    orNull(groupId, text) &&
    typeof receivedAt === 'number' &&
    count(bodyLength) &&
    (problems === 0 || Array.isArray(problems)) &&
    count(seq) &&
    orNull(previousAt, (v) => typeof v === 'number')
  );
}

function fromWire(wire: WireEnvelope, body: string): StoredMessage {
  const [organizationId, tuid, tsmId, tsmEv, tsmTs, gatewayTuid, fingerprint, groupId, receivedAt, , problems, seq, previousAt] = wire;
  let parsed: Readonly<Record<string, unknown>> | undefined;
  return {
    ...(seq > 0 ? { seq, previousAt } : {}),
    organizationId,
    tuid,
    tsmId,
    tsmEv,
    tsmTs,
    gatewayTuid,
    fingerprint,
    groupId,
    receivedAt,
    body,
    problems: problems === 0 ? [] : problems,
    // Parsed only if a listener reads it: live streams serve `body` as it is.
    get message() {
      return (parsed ??= JSON.parse(body) as Readonly<Record<string, unknown>>);
    },
  };
}
