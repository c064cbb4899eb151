/** Environment Profile, configuration (12200-12212) and 13200, all sent with event 30. */
import type { MessageDefinition } from '../types.js';
import { intervalMultiplierField, transactionIdField, withUnit } from './shared-fields.js';

/** Change thresholds of 12210/12212: a non-negative number, with the seed's default. */
function hysteresisField<const Name extends string>(name: Name, description: string, defaultValue: number, unit?: string) {
  return withUnit(
    { name, type: 'Number', required: false, min: 0, default: defaultValue, description, example: defaultValue } as const,
    unit,
  );
}

export const environmentConfigurationDefinitions = [
  {
    tsmId: 12200,
    name: 'Environment Sensor Configuration',
    profile: 'environment',
    direction: 'downlink',
    events: [30],
    commandEndpoint: true,
    fields: [
      transactionIdField,
      {
        name: 'accelerometerMode',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: 0, meaning: 'disabled' },
          { value: 1, meaning: 'orientation' },
          { value: 2, meaning: 'machine monitoring' },
        ],
        example: 1,
      },
      {
        name: 'weatherMode',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: -1, meaning: 'disabled' },
          { value: 0, meaning: 'report at interval' },
        ],
        example: 0,
      },
      {
        name: 'hallMode',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: -1, meaning: 'disabled' },
          { value: 0, meaning: 'report at interval' },
          { value: 1, meaning: 'report changes only' },
        ],
        example: 1,
      },
      {
        name: 'leakageMode',
        type: 'Number',
        integer: true,
        required: false,
        values: [
          { value: 0, meaning: 'disabled' },
          { value: 1, meaning: 'report at interval' },
        ],
        example: 0,
      },
    ],
    notes: [
      'A 12200 carrying only identifiers (tsmId, tsmEv, tsmDstTuid, transactionId, and tsmTs) reads the current configuration; ' +
        'one that also carries mode fields changes those modes. Detect it with isConfigurationReadRequest.',
    ],
  },
  {
    tsmId: 12210,
    name: 'Weather Sensor Configuration',
    profile: 'environment',
    direction: 'downlink',
    events: [30],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      intervalMultiplierField,
      {
        name: 'weatherMode',
        type: 'Number',
        integer: true,
        required: false,
        default: 1,
        values: [
          { value: 0, meaning: 'disabled' },
          { value: 1, meaning: 'enabled with hysteresis' },
        ],
        example: 1,
      },
      hysteresisField('temperatureHysteresis', 'Change in degrees Celsius that is reported at once', 0.5, '°C'),
      hysteresisField('humidityHysteresis', 'Change in percent relative humidity that is reported at once', 2, '%RH'),
      hysteresisField('pressureHysteresis', 'Change in pascals that is reported at once', 20, 'Pa'),
      hysteresisField('lightHysteresis', 'Change in light level that is reported at once', 100),
    ],
    notes: [
      'When weatherMode is 1, measurements are taken at the measurement interval; a change beyond a hysteresis ' +
        'threshold is reported at once, otherwise values are reported at the report interval.',
    ],
  },
  {
    tsmId: 12211,
    name: 'Magneto Switch Configuration',
    profile: 'environment',
    direction: 'downlink',
    events: [30],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      intervalMultiplierField,
      {
        name: 'hallMode',
        type: 'Number',
        integer: true,
        required: false,
        default: 1,
        values: [
          { value: 0, meaning: 'disabled' },
          { value: 1, meaning: 'track and report state changes' },
        ],
        example: 1,
      },
    ],
  },
  {
    tsmId: 12212,
    name: 'Leakage Sensor Configuration',
    profile: 'environment',
    direction: 'downlink',
    events: [30],
    commandEndpoint: false,
    fields: [
      transactionIdField,
      intervalMultiplierField,
      {
        name: 'leakageMode',
        type: 'Number',
        integer: true,
        required: false,
        default: 0,
        values: [
          { value: 0, meaning: 'disabled' },
          { value: 1, meaning: 'enabled' },
        ],
        example: 1,
      },
      hysteresisField('resistanceHysteresis', 'Change in resistance that is reported at once', 10000),
    ],
  },
  {
    tsmId: 13200,
    name: 'Command endpoint message 13200',
    profile: 'environment',
    direction: 'downlink',
    events: [30],
    commandEndpoint: true,
    fields: [],
    openPayload: true,
    notes: [
      'Listed by the seed with the Environment Profile configuration, though outside 12000-12999.',
      'Payload: not shown by the seed, so any extra field is accepted (the envelope fields are still type-checked).',
    ],
  },
] as const satisfies readonly MessageDefinition[];
