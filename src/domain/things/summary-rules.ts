import type { UplinkRecord } from '../messages/message-types.js';

/**
 * What a batch of new messages changes in one thing's summary (SPEC section 3): each value comes from the newest
 * message by `tsmTs` that carries it, so a late, older message never overwrites a newer value. The store applies
 * these candidates with the same "only if newer" guard against what it already holds.
 */
export interface SummaryCandidate {
  tuid: string;
  /** Newest message of any id: the summary's `timestamp` and `gateway_tuid`. */
  ts: number;
  gatewayTuid: string | null;
  battery?: { level: number; ts: number };
  version?: { value: string; ts: number };
  location?: { lat: number; lon: number; ts: number };
  /** Arrival of the batch on the platform's clock and the gateway it came through (silence alerts). */
  heardAt: number;
  heardGatewayTuid: string | null;
}

/** Message ids and fields that feed the summary. */
export const summarySources = {
  battery: { tsmId: 1110, field: 'batl' },
  version: { tsmId: 1100, field: 'swVersion' },
  location: { tsmId: 1210, lat: 'lat', lon: 'lon' },
} as const;

/** What the summary reads of a message; `message` needs only the fields of `summaryFieldsOf`. */
export type SummarySource = Pick<UplinkRecord, 'tuid' | 'tsmId' | 'tsmTs' | 'gatewayTuid' | 'receivedAt' | 'message'>;

/**
 * The fields of a message the summary may take (by its id), or null when it feeds only the timestamps. Lets a
 * writer in another thread summarize without the whole parsed message.
 */
export function summaryFieldsOf(record: Pick<UplinkRecord, 'tsmId' | 'message'>): Record<string, unknown> | null {
  const m = record.message;
  switch (record.tsmId) {
    case summarySources.battery.tsmId:
      return { [summarySources.battery.field]: m[summarySources.battery.field] };
    case summarySources.version.tsmId:
      return { [summarySources.version.field]: m[summarySources.version.field] };
    case summarySources.location.tsmId:
      return {
        [summarySources.location.lat]: m[summarySources.location.lat],
        [summarySources.location.lon]: m[summarySources.location.lon],
      };
    default:
      return null;
  }
}

/** Folds newly stored messages into one candidate per thing. */
export function summarizeMessages(messages: readonly SummarySource[]): SummaryCandidate[] {
  const byTuid = new Map<string, SummaryCandidate>();
  for (const record of messages) {
    let candidate = byTuid.get(record.tuid);
    if (!candidate) {
      candidate = {
        tuid: record.tuid,
        ts: record.tsmTs,
        gatewayTuid: record.gatewayTuid,
        heardAt: record.receivedAt,
        heardGatewayTuid: record.gatewayTuid,
      };
      byTuid.set(record.tuid, candidate);
    } else if (record.tsmTs >= candidate.ts) {
      candidate.ts = record.tsmTs;
      candidate.gatewayTuid = record.gatewayTuid;
    }
    if (record.receivedAt >= candidate.heardAt) {
      candidate.heardAt = record.receivedAt;
      candidate.heardGatewayTuid = record.gatewayTuid;
    }
    const m = record.message;
    if (record.tsmId === summarySources.battery.tsmId && isFiniteNumber(m[summarySources.battery.field])) {
      if (!candidate.battery || record.tsmTs >= candidate.battery.ts)
        candidate.battery = { level: m[summarySources.battery.field] as number, ts: record.tsmTs };
    }
    if (record.tsmId === summarySources.version.tsmId && typeof m[summarySources.version.field] === 'string') {
      if (!candidate.version || record.tsmTs >= candidate.version.ts)
        candidate.version = { value: m[summarySources.version.field] as string, ts: record.tsmTs };
    }
    if (record.tsmId === summarySources.location.tsmId && isFiniteNumber(m.lat) && isFiniteNumber(m.lon)) {
      if (!candidate.location || record.tsmTs >= candidate.location.ts) candidate.location = { lat: m.lat, lon: m.lon, ts: record.tsmTs };
    }
  }
  return [...byTuid.values()];
}

function isFiniteNumber(value: unknown): value is number {
  return typeof value === 'number' && Number.isFinite(value);
}
