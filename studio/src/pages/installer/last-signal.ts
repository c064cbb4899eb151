/**
 * The signal strength an installer reads in "check it reports": the newest one among a thing's messages, in dBm.
 * Which fields carry one is the catalog's: `rssiDbm` of the neighbour reports (1200, 1202), `cellRssi` of the
 * cellular report, and the raw `rssi` of 1200 converted as the catalog says (0 is -128 dBm, 255 is 0 dBm).
 */
import { rssiToDbm } from '../../../../src/catalog/conversions';

export interface Signal {
  dbm: number;
  /** What the value is, in words. */
  source: string;
  /** When the message carrying it was sent, Unix seconds. */
  at: number;
}

const readers: { field: string; source: string; toDbm: (value: number) => number }[] = [
  { field: 'rssiDbm', source: 'radio signal from its neighbour', toDbm: (value) => value },
  { field: 'cellRssi', source: 'cellular signal', toDbm: (value) => value },
  { field: 'rssi', source: 'radio signal from its neighbour', toDbm: rssiToDbm },
];

/** The first message (newest first) that carries a signal strength, read as dBm; null when none does. */
export function lastSignal(messages: readonly Record<string, unknown>[]): Signal | null {
  for (const message of messages) {
    for (const reader of readers) {
      const value = message[reader.field];
      if (typeof value === 'number' && Number.isFinite(value))
        return { dbm: reader.toDbm(value), source: reader.source, at: Number(message['tsmTs']) };
    }
  }
  return null;
}
