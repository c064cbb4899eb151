/** Common Profile, network messages (1200-1205): neighbours and node identification. */
import type { FieldDefinition, MessageDefinition } from '../types.js';
import { measurementField, neighNodeInfoValues } from './shared-fields.js';

/** Raw RSSI as reported; convert with `rssiToDbm` (0 is -128 dBm, 255 is 0 dBm). */
const rssiField = {
  name: 'rssi',
  type: 'Number',
  required: true,
  min: 0,
  max: 255,
  description: 'Raw received signal strength; dBm = 128 * rssi / 255 - 128',
  example: 180,
} as const satisfies FieldDefinition;

/** The optional tail shared by 1200 and 1202. */
const neighbourDetailFields = [
  measurementField('rssiDbm', 'Received signal strength', -37.6, 'dBm'),
  {
    name: 'neighNodeInfo',
    type: 'Number',
    integer: true,
    required: false,
    values: neighNodeInfoValues,
    description: 'Relation of the neighbour to the sender',
    example: 2,
  },
  measurementField('neighRadioPower', 'Neighbour radio power (raw)', 10),
  measurementField('neighRadioPowerDbm', 'Neighbour radio power', 4, 'dBm'),
] as const;

/** "tuid String or null" in the responses of 1201 and 1203: null when no thing matches. */
const nullableTuidField = {
  name: 'tuid',
  type: 'String',
  nullable: true,
  required: false,
  description: 'TUID of the identified thing, or null when none',
  example: 'TD-SENSOR-0002',
} as const satisfies FieldDefinition;

export const commonNetworkDefinitions = [
  {
    tsmId: 1200,
    name: 'Mesh Network Neighbouring Data',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      { name: 'wpnode', type: 'String', required: true, description: 'Mesh node id', example: '1234567' },
      rssiField,
      ...neighbourDetailFields,
    ],
  },
  {
    tsmId: 1201,
    name: 'Mesh Node Identification',
    profile: 'common',
    direction: 'both',
    events: [19, 20],
    commandEndpoint: false,
    fields: [],
    variants: [
      {
        name: 'request',
        direction: 'downlink',
        events: [19],
        fields: [
          {
            name: 'wpnode',
            type: 'Number',
            integer: true,
            min: 0,
            required: true,
            description: 'Mesh node id to identify',
            example: 1234567,
          },
        ],
      },
      {
        name: 'response',
        direction: 'uplink',
        events: [20],
        fields: [
          { name: 'wpnode', type: 'Number', integer: true, min: 0, required: false, description: 'Mesh node id', example: 1234567 },
          nullableTuidField,
        ],
      },
    ],
    notes: ['wpnode is a Number here but a String in 1200 and 1205, as the seed gives it.'],
  },
  {
    tsmId: 1202,
    name: 'Sensor Network Neighbouring Data',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      { name: 'tuid', type: 'String', required: true, description: 'TUID of the neighbour', example: 'TD-SENSOR-0002' },
      rssiField,
      ...neighbourDetailFields,
    ],
  },
  {
    tsmId: 1203,
    name: 'Bluetooth Node Identification',
    profile: 'common',
    direction: 'both',
    events: [19, 20],
    commandEndpoint: false,
    fields: [],
    variants: [
      {
        name: 'request',
        direction: 'downlink',
        events: [19],
        // Unmarked in the seed, but it is the request's only field: without it nothing is asked.
        fields: [{ name: 'btid', type: 'String', required: true, description: 'Bluetooth advertisement name', example: 'TD-BT-01' }],
      },
      {
        name: 'response',
        direction: 'uplink',
        events: [20],
        fields: [
          { name: 'btid', type: 'String', required: false, description: 'Bluetooth advertisement name', example: 'TD-BT-01' },
          nullableTuidField,
        ],
      },
    ],
  },
  {
    tsmId: 1205,
    name: 'Sensor Network Identification',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      // The seed marks btid and wpnode optional and leaves tuid unmarked: read as required.
      { name: 'tuid', type: 'String', required: true, description: 'TUID of the thing', example: 'TD-SENSOR-0002' },
      { name: 'btid', type: 'String', required: false, description: 'Bluetooth name', example: 'TD-BT-01' },
      { name: 'wpnode', type: 'String', required: false, description: 'Mesh node id', example: '1234567' },
    ],
    notes: ['Only the response is defined; the request shape is not shown by the seed.'],
  },
] as const satisfies readonly MessageDefinition[];
