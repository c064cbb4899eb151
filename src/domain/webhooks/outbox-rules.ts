import { randomUUID } from 'node:crypto';
import { shownGroupId } from '../groups/unassigned-group.js';
import type { OutboxRow, OutboxTarget, WireHandOff } from './webhook-types.js';

/**
 * How events become outbox rows: which endpoints take an event (its filters: AND across kinds, OR within a list;
 * `tsm_ids` narrow `message.stored` only), and how the events of one cause are cut into deliveries of at most
 * `batch_max_events`. Pure, shared by both stores' batch writers (the SQLite one in its thread) and the domain.
 */

export function newWebhookId(prefix: 'whe' | 'whd' | 'evt'): string {
  return `${prefix}_${randomUUID().replaceAll('-', '')}`;
}

/** RFC 3339 UTC of a time in ms. */
export function rfc3339(ms: number): string {
  return new Date(ms).toISOString();
}

/** The last time `eventJson` formatted: a batch's events share their commit time, so it is formatted once. */
let formatted = { ms: Number.NaN, text: '' };

/** One event as it goes out: its JSON text, `data` spliced in as given (already JSON). */
export function eventJson(id: string, type: string, timestampMs: number, dataJson: string): string {
  if (formatted.ms !== timestampMs) formatted = { ms: timestampMs, text: JSON.stringify(rfc3339(timestampMs)) };
  return `{"id":${JSON.stringify(id)},"type":${JSON.stringify(type)},"timestamp":${formatted.text},"data":${dataJson}}`;
}

/** `message.stored`'s data: the stored message as listed (`messageJson`, with deploymentGroupId) plus `seq`. */
export function messageStoredData(messageJson: string, seq: number | null): string {
  const tail = `"seq":${seq === null ? 'null' : seq}}`;
  return messageJson === '{}' ? `{${tail}` : `${messageJson.slice(0, -1)},${tail}`;
}

export interface EventSubject {
  type: string;
  tuid: string | null;
  groupId: string | null;
  tsmId: number | null;
}

/** Whether an endpoint wants this event. */
export function targetMatches(target: OutboxTarget, subject: EventSubject): boolean {
  if (!target.events.includes(subject.type)) return false;
  if (target.tuids !== null && (subject.tuid === null || !target.tuids.includes(subject.tuid))) return false;
  if (target.groupIds !== null && (subject.tuid === null || !target.groupIds.includes(shownGroupId(subject.groupId)))) return false;
  if (target.tsmIds !== null && subject.type === 'message.stored' && (subject.tsmId === null || !target.tsmIds.includes(subject.tsmId)))
    return false;
  return true;
}

/**
 * Collects the events of one cause per endpoint and cuts them into delivery rows: a full batch is due after the
 * first delay; a partial one of a batching endpoint waits `batch_max_wait_ms` too (the dispatcher joins partial
 * deliveries that have not been tried yet when it sends them). The rows of endpoints in `handOff` are leased.
 */
export class OutboxCollector {
  private readonly byEndpoint = new Map<string, { target: OutboxTarget; events: string[]; types: Set<string> }>();

  private readonly handedOff: ReadonlySet<string>;

  constructor(
    private readonly now: number,
    private readonly firstDelayMs: number,
    private readonly handOff?: WireHandOff,
  ) {
    this.handedOff = new Set(handOff?.endpointIds ?? []);
  }

  add(targets: readonly OutboxTarget[], subject: EventSubject, eventJsonText: string): void {
    for (const target of targets) {
      if (!targetMatches(target, subject)) continue;
      let entry = this.byEndpoint.get(target.endpointId);
      if (!entry) this.byEndpoint.set(target.endpointId, (entry = { target, events: [], types: new Set() }));
      entry.events.push(eventJsonText);
      entry.types.add(subject.type);
    }
  }

  get size(): number {
    return this.byEndpoint.size;
  }

  rows(): OutboxRow[] {
    const rows: OutboxRow[] = [];
    for (const { target, events, types } of this.byEndpoint.values()) {
      const size = Math.max(1, target.batchMaxEvents);
      const leased = this.handedOff.has(target.endpointId);
      for (let at = 0; at < events.length; at += size) {
        const chunk = events.slice(at, at + size);
        const partial = target.batchMaxEvents > 1 && chunk.length < size;
        const nextAttemptAt = this.now + (partial ? Math.max(this.firstDelayMs, target.batchMaxWaitMs) : this.firstDelayMs);
        rows.push({
          id: newWebhookId('whd'),
          organizationId: target.organizationId,
          endpointId: target.endpointId,
          eventTypes: JSON.stringify([...types]),
          events: `[${chunk.join(',')}]`,
          eventCount: chunk.length,
          nextAttemptAt,
          createdAt: this.now,
          ...(leased && { leaseUntil: nextAttemptAt + this.handOff!.leaseMs }),
        });
      }
    }
    return rows;
  }
}
