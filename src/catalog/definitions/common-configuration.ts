/** Common Profile, sensor configuration (1500-1505) and ping (1600). */
import type { MessageDefinition } from '../types.js';
import { disabledEnabledValues, transactionIdField } from './shared-fields.js';

const echoNote = 'The device echoes the applied configuration with event 31 through the data integration.';

export const commonConfigurationDefinitions = [
  {
    tsmId: 1500,
    name: 'Sensor Application Interval Configuration',
    profile: 'common',
    direction: 'downlink',
    events: [30, 31],
    commandEndpoint: true,
    fields: [
      transactionIdField,
      // Units are not shown by the seed: any positive whole number is passed to the device.
      { name: 'measurementInterval', type: 'Number', integer: true, min: 1, required: false, description: 'Measurement interval (unit not shown by the seed)', example: 60 },
      { name: 'reportInterval', type: 'Number', integer: true, min: 1, required: false, description: 'Report interval (unit not shown by the seed)', example: 300 },
    ],
    notes: [
      'tsmDstTuid, listed by the seed for this id, is the envelope field and may be sent on any downlink.',
      'Event 30 sends the configuration; event 31 is the device echo carrying the applied configuration.',
    ],
  },
  {
    tsmId: 1501,
    name: 'Mesh Node Role Configuration',
    profile: 'common',
    direction: 'downlink',
    events: [],
    commandEndpoint: true,
    fields: [
      transactionIdField,
      {
        name: 'nodeRole',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: 0, meaning: 'headnode' },
          { value: 1, meaning: 'subnode' },
        ],
        description: 'Role to take (a setting, unlike the bit flags of 1220)',
        example: 1,
      },
      { name: 'autoRole', type: 'Number', integer: true, required: false, values: disabledEnabledValues, description: 'Automatic role selection', example: 1 },
      { name: 'lowLatency', type: 'Number', integer: true, required: false, values: disabledEnabledValues, description: 'Low-latency mode; mains-powered devices only', example: 0 },
    ],
    notes: [echoNote],
  },
  {
    tsmId: 1502,
    name: 'Mesh Access Cycle Configuration',
    profile: 'common',
    direction: 'downlink',
    events: [],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      {
        name: 'nodeAccessCycle',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: 0, meaning: 'automatic (2000 to 8000 ms)' },
          { value: 1, meaning: '2000 ms (fastest, highest power)' },
          { value: 2, meaning: '4000 ms' },
          { value: 3, meaning: '8000 ms (slowest, lowest power)' },
        ],
        description: 'Access cycle',
        example: 0,
      },
    ],
    notes: [echoNote],
  },
  {
    tsmId: 1503,
    name: 'Battery Profile Configuration',
    profile: 'common',
    direction: 'downlink',
    events: [],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      {
        name: 'profileId',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: 0, meaning: 'default for device type' },
          { value: 1, meaning: 'two alkaline AA/AAA cells in series' },
          { value: 2, meaning: 'two lithium AA/AAA cells in series' },
          { value: 3, meaning: 'one lithium CR2032 cell' },
        ],
        description: 'Battery profile',
        example: 0,
      },
    ],
    notes: [echoNote],
  },
  {
    tsmId: 1504,
    name: 'Low-Power Storage Mode',
    profile: 'common',
    direction: 'downlink',
    events: [30],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      {
        name: 'enabled',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: 0, meaning: 'normal mode' },
          { value: 1, meaning: 'enter low-power deep sleep' },
        ],
        description: 'Storage mode',
        example: 0,
      },
    ],
    notes: ['The wake-up method depends on the device type.', echoNote],
  },
  {
    tsmId: 1505,
    name: 'Sensor LED Control',
    profile: 'common',
    direction: 'downlink',
    events: [],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      {
        name: 'profileId',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: 0, meaning: 'off' },
          { value: 1, meaning: 'blink every 2 seconds' },
        ],
        description: 'LED pattern',
        example: 1,
      },
      { name: 'duration', type: 'Number', integer: true, min: 0, required: false, unit: 's', description: 'Seconds before auto-off', example: 30 },
    ],
    notes: [echoNote],
  },
  {
    tsmId: 1600,
    name: 'Ping Request',
    profile: 'common',
    direction: 'downlink',
    events: [35],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      { name: 'wpnode', type: 'Number', integer: true, min: 0, required: false, description: 'Mesh node id filter', example: 1234567 },
    ],
    notes: ['When wpnode is sent, only the device with that mesh node id answers. The response shape is not shown by the seed.'],
  },
] as const satisfies readonly MessageDefinition[];
