/** Conversions the seed defines for reported values. The meanings come from the definitions' data. */
import { isPlainObject } from './check-value.js';
import { neighNodeInfoValues, nodeRoleFlags } from './definitions/shared-fields.js';

/**
 * Raw RSSI (0..255) to dBm: `128 * rssi / 255 - 128`, so 255 is 0 dBm, 0 is -128 dBm and
 * 127.5 is -64 dBm. Not rounded: callers decide how to display it.
 */
export function rssiToDbm(rssi: number): number {
  return (128 * rssi) / 255 - 128;
}

/**
 * Names of the bits set in a 1220 `nodeRole`, lowest bit first: 0x85 is
 * ['subnode', 'sink', 'autorole']. Bits the seed does not name are left out.
 */
export function decodeNodeRole(flags: number): string[] {
  return nodeRoleFlags.filter((flag) => (flags & flag.bit) !== 0).map((flag) => flag.name);
}

/** Meaning of a 1200/1202 `neighNodeInfo` value, or undefined for a value the seed does not define. */
export function describeNeighNodeInfo(value: number): string | undefined {
  return neighNodeInfoValues.find((entry) => entry.value === value)?.meaning;
}

/** Keys a 12200 may carry and still be a read request: identifiers only, no mode field. */
const readRequestKeys: ReadonlySet<string> = new Set(['tsmId', 'tsmEv', 'tsmDstTuid', 'transactionId', 'tsmTs']);

/**
 * True for a 12200 that only reads the current configuration: it carries nothing but the
 * identifiers tsmId, tsmEv, tsmDstTuid, transactionId (and tsmTs). One with a mode field writes.
 */
export function isConfigurationReadRequest(message: unknown): boolean {
  if (!isPlainObject(message) || message['tsmId'] !== 12200) return false;
  return Object.keys(message).every((key) => readRequestKeys.has(key));
}
