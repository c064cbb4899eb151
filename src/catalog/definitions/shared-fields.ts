/**
 * Fields and value sets that several message ids share. Written once here so that, for example,
 * the beacon radio settings of 1206, 1207 and 1208 cannot drift apart.
 */
import type { BitFlag, FieldDefinition } from '../types.js';

/**
 * Required on every cloud-to-device configuration or command: the device echoes it with the
 * applied configuration (event 31) and the platform matches the echo to the request by it.
 * Any integer is accepted because the seed gives no range and the caller chooses it.
 */
export const transactionIdField = {
  name: 'transactionId',
  type: 'Number',
  integer: true,
  required: true,
  description: 'Caller-chosen id, echoed by the device in its response',
  example: 1001,
} as const satisfies FieldDefinition;

/** `neighNodeInfo` of 1200 and 1202. */
export const neighNodeInfoValues = [
  { value: 1, meaning: 'node routes traffic to the sender' },
  { value: 2, meaning: 'node is in the same cluster' },
  { value: 3, meaning: 'node is the routing destination from the sender' },
] as const;

/** `nodeRole` bit flags of 1220 (a diagnostic report, not the 0/1 setting of 1501). */
export const nodeRoleFlags = [
  { bit: 0x01, name: 'subnode', meaning: 'subnode' },
  { bit: 0x02, name: 'headnode', meaning: 'headnode' },
  { bit: 0x04, name: 'sink', meaning: 'sink' },
  { bit: 0x10, name: 'low-latency', meaning: 'low-latency node' },
  { bit: 0x20, name: 'relay', meaning: 'node in relay mode' },
  { bit: 0x80, name: 'autorole', meaning: 'node in autorole mode' },
] as const satisfies readonly BitFlag[];

/**
 * Beacon radio settings. The seed defines them for 1206 and leaves 1207 and 1208 "not shown";
 * all three configure the same radio, so they share 1206's channel set, interval range and powers.
 */
export const beaconChannelsField = {
  name: 'beaconChannels',
  type: 'Number',
  integer: true,
  required: false,
  description: 'Advertising channel mask',
  values: [
    { value: 0, meaning: 'channel 37' },
    { value: 1, meaning: 'channel 38' },
    { value: 2, meaning: 'channel 39' },
    { value: 6, meaning: 'all channels (37, 38, 39)' },
    { value: 255, meaning: 'beacon off' },
  ],
  example: 6,
} as const satisfies FieldDefinition;

export const beaconReportIntervalField = {
  name: 'reportInterval',
  type: 'Number',
  integer: true,
  required: false,
  unit: 'ms',
  min: 100,
  max: 60000,
  description: 'Advertising interval',
  example: 1000,
} as const satisfies FieldDefinition;

export const beaconTxPowerField = {
  name: 'txPower',
  type: 'Number',
  integer: true,
  required: false,
  unit: 'dBm',
  description: 'Transmit power',
  values: [
    { value: -8, meaning: '-8 dBm' },
    { value: -4, meaning: '-4 dBm' },
    { value: 0, meaning: '0 dBm' },
    { value: 4, meaning: '4 dBm' },
  ],
  example: 0,
} as const satisfies FieldDefinition;

/** Raw bytes travel as a hex string (see the Buffer decision in decisions.ts). */
export function beaconDataField(description: string) {
  return {
    name: 'beaconData',
    type: 'Buffer',
    required: false,
    description,
    example: '0201061aff4c000215',
  } as const satisfies FieldDefinition;
}

/** One byte: 0..255. */
export function byteField<const Name extends string>(name: Name, description: string) {
  return {
    name,
    type: 'Number',
    integer: true,
    required: false,
    min: 0,
    max: 255,
    description,
    example: 1,
  } as const satisfies FieldDefinition;
}

/** Adds `unit` only when there is one: a key holding undefined would not be plain JSON. */
export function withUnit<const Field extends FieldDefinition>(field: Field, unit?: string): Field & { readonly unit?: string } {
  return unit === undefined ? field : { ...field, unit };
}

/** An optional measurement: any finite number, with a unit when the seed gives one. */
export function measurementField<const Name extends string>(name: Name, description: string, example: number, unit?: string) {
  return withUnit({ name, type: 'Number', required: false, description, example } as const, unit);
}

/** An optional free string. */
export function textField<const Name extends string>(name: Name, description: string, example: string) {
  return { name, type: 'String', required: false, description, example } as const satisfies FieldDefinition;
}

/** Multiplies the measurement interval (12210-12212); default 1. */
export const intervalMultiplierField = {
  name: 'intervalMultiplier',
  type: 'Number',
  integer: true,
  required: false,
  min: 1,
  default: 1,
  description: 'Multiplies the measurement interval',
  example: 1,
} as const satisfies FieldDefinition;

/** 0 disabled / 1 enabled switches of 1501 and 1504. */
export const disabledEnabledValues = [
  { value: 0, meaning: 'disabled' },
  { value: 1, meaning: 'enabled' },
] as const;
