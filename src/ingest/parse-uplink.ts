import { hash } from 'node:crypto';
import { validateUplink } from '../catalog/index.js';
import type { DeadLetterRecord, UplinkRecord } from '../domain/messages/message-types.js';
import { isValidTuid } from '../domain/things/tuid.js';

/** Where an uplink payload came from: the organization and gateway of its topic, and who published it. */
export interface UplinkSource {
  organizationId: string;
  gatewayTuid: string;
  /** e.g. the MQTT topic; kept on dead letters. */
  source: string;
  /** e.g. the MQTT username; kept on dead letters. */
  client: string | null;
  receivedAt: number;
}

/** Bounds on one payload, so one uplink cannot become a million rows or one huge row (issue 12, items 4 and 6). */
export interface UplinkLimits {
  /** Messages stored (or dead-lettered one by one) per payload; the excess is one dead letter. */
  maxMessages: number;
  /** Largest message stored, as JSON text in bytes; a larger one is dead-lettered. */
  maxMessageBytes: number;
}

export const defaultUplinkLimits: UplinkLimits = { maxMessages: 1000, maxMessageBytes: 65_536 };

export interface ParsedUplink {
  records: UplinkRecord[];
  deadLetters: DeadLetterRecord[];
  /**
   * How many messages the payload accounts for: each message taken (stored, a duplicate or dead-lettered), and the
   * messages past UPLINK_MAX_MESSAGES once, as the one dead letter that holds them. So received = stored +
   * duplicates + dead letters, always.
   */
  received: number;
}

// A dead letter keeps at most this much of a payload: enough to diagnose, bounded so junk cannot fill the store.
const maxDeadLetterPayload = 64 * 1024;

/**
 * Reads an uplink payload: a JSON array of messages or one message object (SPEC section 6). Each message is
 * checked leniently against the catalog: a readable envelope is enough to be stored (catalog rule breaks travel
 * along as flags); an unreadable one becomes a dead letter with the reason, as does a payload that is not JSON.
 */
export function parseUplink(payload: Buffer | string, from: UplinkSource, limits: UplinkLimits = defaultUplinkLimits): ParsedUplink {
  const text = typeof payload === 'string' ? payload : payload.toString('utf8');
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch (error) {
    return { records: [], deadLetters: [deadLetter(from, `payload is not JSON: ${(error as Error).message}`, text)], received: 1 };
  }
  const all = Array.isArray(parsed) ? parsed : [parsed];
  const items = all.slice(0, limits.maxMessages);
  const records: UplinkRecord[] = [];
  const deadLetters: DeadLetterRecord[] = [];
  if (all.length > items.length) {
    // One dead letter for the whole excess: never retried, and it cannot multiply into a row per element.
    const excess = `messages [${items.length}] to [${all.length - 1}]: the payload holds ${all.length} messages; at most ${limits.maxMessages} are taken (UPLINK_MAX_MESSAGES)`;
    deadLetters.push(deadLetter(from, excess, serialize(all.slice(items.length)) ?? ''));
  }
  items.forEach((item, index) => {
    const where = Array.isArray(parsed) ? `message [${index}]: ` : '';
    const itemText = serialize(item);
    if (itemText === undefined) {
      deadLetters.push(deadLetter(from, `${where}message is nested too deeply to store`, text));
      return;
    }
    const size = Buffer.byteLength(itemText);
    if (size > limits.maxMessageBytes) {
      deadLetters.push(
        deadLetter(from, `${where}message is ${size} bytes; at most ${limits.maxMessageBytes} are stored (MESSAGE_MAX_BYTES)`, itemText),
      );
      return;
    }
    const { errors, warnings } = validateUplink(item);
    if (errors.length > 0) {
      deadLetters.push(deadLetter(from, `${where}${errors.map((e) => e.message).join('; ')}`, itemText));
      return;
    }
    const message = item as Record<string, unknown>;
    const tuid = message.tsmTuid as string;
    if (!isStorableId(message.tsmId)) {
      deadLetters.push(deadLetter(from, `${where}tsmId must be an integer from 0 to ${maxStoredId}`, itemText));
      return;
    }
    if (!isValidTuid(tuid)) {
      deadLetters.push(deadLetter(from, `${where}tsmTuid must match ^[A-Za-z0-9._:-]{1,64}$`, itemText));
      return;
    }
    const body = itemText;
    records.push({
      organizationId: from.organizationId,
      tuid,
      tsmId: message.tsmId as number,
      // An event id that is no storable integer is kept in the body (and flagged by the catalog) but not indexed.
      tsmEv: isStorableId(message.tsmEv) ? message.tsmEv : null,
      tsmTs: message.tsmTs as number,
      gatewayTuid: typeof message.tsmGw === 'string' && message.tsmGw !== '' ? message.tsmGw : from.gatewayTuid,
      // One-shot hash: a Hash object per message cost more than the digest itself.
      fingerprint: hash('sha256', body, 'hex').slice(0, 16),
      body,
      message,
      problems: warnings,
      receivedAt: from.receivedAt,
    });
  });
  return { records, deadLetters, received: items.length + (all.length > items.length ? 1 : 0) };
}

/**
 * A parsed message as JSON text, or undefined when it is nested too deeply to write back: JSON.parse accepts far
 * deeper documents than the recursive JSON.stringify can serialize, and the overflow would otherwise fail the
 * whole payload on every redelivery (never acknowledged, never stored, never dead-lettered).
 */
function serialize(item: unknown): string | undefined {
  try {
    return JSON.stringify(item) ?? String(item);
  } catch {
    return undefined;
  }
}

// Ids are stored as 32-bit integers in both stores.
const maxStoredId = 2_147_483_647;

function isStorableId(value: unknown): value is number {
  return typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= maxStoredId;
}

/**
 * A dead letter for `payload`. Truncated, and NUL characters escaped: PostgreSQL text cannot hold them, and a
 * dead letter that fails to store would fail its whole batch again on every redelivery.
 */
export function deadLetter(from: UplinkSource, reason: string, payload: string): DeadLetterRecord {
  const bounded = payload.length > maxDeadLetterPayload ? `${payload.slice(0, maxDeadLetterPayload)}…[truncated]` : payload;
  return {
    organizationId: from.organizationId,
    receivedAt: from.receivedAt,
    source: withoutNul(from.source),
    client: from.client === null ? null : withoutNul(from.client),
    reason: withoutNul(reason),
    payload: withoutNul(bounded),
  };
}

function withoutNul(text: string): string {
  return text.includes('\u0000') ? text.replaceAll('\u0000', '\\u0000') : text;
}
