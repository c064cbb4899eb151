/**
 * Common Profile, beacon configuration (1206-1208), all sent with event 30. The radio settings
 * come from shared-fields.ts so the three ids accept the same channels, intervals and powers.
 */
import type { MessageDefinition } from '../types.js';
import {
  beaconChannelsField,
  beaconDataField,
  beaconReportIntervalField,
  beaconTxPowerField,
  byteField,
  transactionIdField,
} from './shared-fields.js';

const radioNote =
  'beaconChannels, reportInterval and txPower use the value set and range the seed gives for 1206; ' +
  'the seed does not show them for 1207 and 1208, which configure the same radio.';

export const commonBeaconDefinitions = [
  {
    tsmId: 1206,
    name: 'Beacon format A configuration',
    profile: 'common',
    direction: 'downlink',
    events: [30],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      beaconDataField('URL or data buffer'),
      byteField('beaconMajor', 'Beacon major number (1 byte)'),
      byteField('beaconMinor', 'Beacon minor number (1 byte)'),
      beaconChannelsField,
      beaconReportIntervalField,
      beaconTxPowerField,
    ],
  },
  {
    tsmId: 1207,
    name: 'Beacon format B configuration',
    profile: 'common',
    direction: 'downlink',
    events: [30],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      {
        name: 'beaconFrame',
        type: 'Number',
        integer: true,
        required: false,
        description: 'Frame type',
        values: [
          { value: 0, meaning: 'UID' },
          { value: 16, meaning: 'URL' },
          { value: 32, meaning: 'TLM' },
          { value: 48, meaning: 'EID' },
        ],
        example: 16,
      },
      beaconDataField('Frame-specific data'),
      beaconChannelsField,
      beaconReportIntervalField,
      beaconTxPowerField,
    ],
    notes: [radioNote],
  },
  {
    tsmId: 1208,
    name: 'Generic Beacon Configuration',
    profile: 'common',
    direction: 'downlink',
    events: [30],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      beaconTxPowerField,
      beaconReportIntervalField,
      { name: 'index', type: 'Number', integer: true, required: false, min: 0, max: 2, description: 'Beacon index', example: 0 },
      beaconChannelsField,
      beaconDataField('Raw advertisement data'),
    ],
    notes: [radioNote],
  },
] as const satisfies readonly MessageDefinition[];
