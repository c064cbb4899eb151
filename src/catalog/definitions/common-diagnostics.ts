/** Common Profile, diagnostics and commands (1400-1404). */
import type { FieldDefinition, MessageDefinition } from '../types.js';
import { textField, transactionIdField } from './shared-fields.js';

const diagGroupValues = [
  { value: 0, meaning: 'system' },
  { value: 1, meaning: 'mobile network' },
  { value: 2, meaning: 'sensor network' },
  { value: 3, meaning: 'gateway' },
  { value: 4, meaning: 'sensor' },
  { value: 5, meaning: 'firmware update' },
] as const;

const diagGroupField = {
  name: 'diagGroup',
  type: 'Number',
  integer: true,
  required: false,
  values: diagGroupValues,
  description: 'Diagnostics group',
  example: 2,
} as const satisfies FieldDefinition;

export const commonDiagnosticsDefinitions = [
  {
    tsmId: 1400,
    name: 'Diagnostics Info',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [diagGroupField, textField('diagType', 'Kind of diagnostics', 'neighbours'), textField('diagData', 'Diagnostics data', 'n=4')],
  },
  {
    tsmId: 1401,
    name: 'Enable Diagnostics',
    profile: 'common',
    direction: 'downlink',
    events: [27],
    commandEndpoint: false,
    fields: [
      // The seed marks diagInterval and diagLevel optional and leaves these two unmarked: read as required.
      { ...diagGroupField, required: true },
      {
        name: 'diagExpiry',
        type: 'Number',
        integer: true,
        min: 0,
        required: true,
        unit: 's',
        description: 'When diagnostics stop, Unix time in seconds (UTC)',
        example: 1700086400,
      },
      {
        name: 'diagInterval',
        type: 'Number',
        integer: true,
        min: 1,
        required: false,
        unit: 's',
        description: 'Reporting interval',
        example: 60,
      },
      { name: 'diagLevel', type: 'Number', integer: true, min: 0, required: false, description: 'Verbosity', example: 1 },
    ],
  },
  {
    tsmId: 1402,
    name: 'Remote Command',
    profile: 'common',
    direction: 'both',
    events: [35, 36],
    commandEndpoint: false,
    fields: [],
    variants: [
      {
        name: 'request',
        direction: 'downlink',
        events: [35],
        fields: [
          { name: 'command', type: 'String', required: true, description: 'Command to run', example: 'reboot' },
          textField('payload', 'Command arguments', ''),
          transactionIdField,
        ],
      },
      {
        name: 'response',
        direction: 'uplink',
        events: [36],
        fields: [
          {
            name: 'result',
            type: 'Number',
            integer: true,
            required: true,
            values: [
              { value: 0, meaning: 'OK' },
              { value: -1, meaning: 'generic error' },
              { value: -2, meaning: 'unsupported command' },
            ],
            description: 'Result code',
            example: 0,
          },
          textField('payload', 'Command output', 'done'),
          transactionIdField,
        ],
      },
    ],
  },
  {
    tsmId: 1403,
    name: 'Error Info',
    profile: 'common',
    direction: 'uplink',
    events: [29],
    commandEndpoint: false,
    fields: [textField('errorType', 'Kind of error', 'sensor'), textField('errorCause', 'Cause', 'humidity sensor not responding')],
  },
  {
    tsmId: 1404,
    name: 'Remote Reset Request',
    profile: 'common',
    direction: 'downlink',
    events: [23],
    commandEndpoint: false,
    fields: [],
    notes: ['Requests a device reset. Payload: not shown by the seed, so only envelope fields are accepted.'],
  },
] as const satisfies readonly MessageDefinition[];
