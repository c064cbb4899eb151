/** Environment Profile, sensor data (12100-12102). */
import type { MessageDefinition } from '../types.js';
import { measurementField } from './shared-fields.js';

export const environmentDataDefinitions = [
  {
    tsmId: 12100,
    name: 'Weather Info',
    profile: 'environment',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      measurementField('airp', 'Air pressure', 101325, 'Pa'),
      { name: 'humd', type: 'Number', required: false, min: 0, max: 100, unit: '%RH', description: 'Relative humidity', example: 45.5 },
      measurementField('temp', 'Temperature', 21.3, '°C'),
      measurementField('lght', 'Light level', 320),
    ],
  },
  {
    tsmId: 12101,
    name: 'Magneto Switch Info',
    profile: 'environment',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      {
        name: 'hall',
        type: 'Number',
        integer: true,
        required: true,
        values: [
          { value: 0, meaning: 'open' },
          { value: 1, meaning: 'closed' },
        ],
        description: 'Switch state',
        example: 1,
      },
      {
        name: 'hallCount',
        type: 'Number',
        integer: true,
        min: 0,
        required: false,
        description: 'State changes in the measurement period; 2 means one A-B-A cycle',
        example: 2,
      },
    ],
  },
  {
    tsmId: 12102,
    name: 'Leakage Resistance Data',
    profile: 'environment',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [measurementField('resistance', 'Leakage resistance (ADC reading)', 52000)],
  },
] as const satisfies readonly MessageDefinition[];
