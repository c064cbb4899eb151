/** Common Profile, system information (1100-1112). */
import type { MessageDefinition } from '../types.js';
import { measurementField, textField } from './shared-fields.js';

export const commonSystemDefinitions = [
  {
    tsmId: 1100,
    name: 'Thing System Info',
    profile: 'common',
    direction: 'uplink',
    events: [11],
    commandEndpoint: false,
    fields: [
      textField('swVersion', 'Installed firmware version', '1.4.2'),
      textField('modelCode', 'Manufacturer product family id', 'TD-ENV-01'),
      textField('psn', 'Manufacturer unique serial number', 'PSN000123456'),
    ],
  },
  {
    tsmId: 1101,
    name: 'Thing Information Request',
    profile: 'common',
    direction: 'downlink',
    events: [32],
    commandEndpoint: false,
    fields: [
      {
        name: 'requestTsmId',
        type: 'Number',
        integer: true,
        min: 1,
        required: true,
        description: 'Id of the message wanted',
        example: 1100,
      },
    ],
    notes: ['The device answers with the requested message and event 33, or with 1102 when it cannot supply it.'],
  },
  {
    tsmId: 1102,
    name: 'Thing Information Unavailable Response',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [],
    notes: ['Sent when the device cannot supply the message asked for in 1101. Payload: not shown by the seed.'],
  },
  {
    tsmId: 1110,
    name: 'Thing Battery Info',
    profile: 'common',
    direction: 'uplink',
    events: [10, 101],
    commandEndpoint: false,
    fields: [
      {
        name: 'batl',
        type: 'Number',
        required: true,
        unit: '%',
        min: 0,
        max: 100,
        description: 'Battery level in percent (may be fractional)',
        example: 87.5,
      },
      measurementField('chrg', 'Charging state (values not shown by the seed)', 0),
    ],
  },
  {
    tsmId: 1111,
    name: 'Thing Orientation Info',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      measurementField('accx', 'Acceleration on the x axis (unit not shown by the seed)', 0.02),
      measurementField('accy', 'Acceleration on the y axis (unit not shown by the seed)', -0.01),
      measurementField('accz', 'Acceleration on the z axis (unit not shown by the seed)', 0.98),
    ],
  },
  {
    tsmId: 1112,
    name: 'Thing Uptime Info',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [{ name: 'uptime', type: 'Number', required: false, unit: 's', min: 0, description: 'Seconds since start-up', example: 86400 }],
  },
] as const satisfies readonly MessageDefinition[];
