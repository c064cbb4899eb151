/** Common Profile, firmware updates (1300-1313). */
import type { FieldDefinition, MessageDefinition } from '../types.js';
import { textField } from './shared-fields.js';

const binaryTypeValues = [
  { value: 'stm32_mcu', meaning: 'STM32 microcontroller firmware' },
  { value: 'nRF52_sink', meaning: 'nRF52 mesh sink firmware' },
] as const;

const firmwareResultValues = [
  { value: 'ok', meaning: 'update succeeded' },
  { value: 'fail', meaning: 'update failed' },
  { value: 'cancel', meaning: 'update cancelled' },
] as const;

const binaryUrlField = {
  name: 'binaryUrl',
  type: 'String',
  format: 'url',
  // Unmarked in the seed, but an update without a location cannot be carried out.
  required: true,
  description: 'Where to download the binary (absolute http or https URL)',
  example: 'https://firmware.example.com/gw/2.1.0.bin',
} as const satisfies FieldDefinition;

const binarySHAField = {
  name: 'binarySHA',
  type: 'String',
  format: 'sha256',
  required: false,
  description: 'SHA256 checksum of the binary, 64 hex digits',
  example: '9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08',
} as const satisfies FieldDefinition;

const binaryVersionField = textField('binaryVersion', 'Version of the binary', '2.1.0');

export const commonFirmwareDefinitions = [
  {
    tsmId: 1300,
    name: 'Gateway Firmware Update',
    profile: 'common',
    direction: 'downlink',
    events: [25],
    commandEndpoint: false,
    fields: [
      {
        name: 'binaries',
        type: 'Array',
        required: true,
        minItems: 1,
        description: 'Binaries to install',
        items: {
          type: 'Object',
          fields: [
            binaryVersionField,
            binaryUrlField,
            {
              name: 'binaryType',
              type: 'String',
              // Unmarked in the seed; required because the gateway must know which chip to flash.
              required: true,
              values: binaryTypeValues,
              description: 'Which processor the binary is for',
              example: 'stm32_mcu',
            },
            binarySHAField,
          ],
        },
      },
    ],
  },
  {
    tsmId: 1301,
    name: 'Gateway Firmware Status',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      { name: 'result', type: 'String', required: false, values: firmwareResultValues, description: 'Outcome', example: 'ok' },
      textField('resultReason', 'Details', 'installed 2.1.0'),
    ],
  },
  {
    tsmId: 1302,
    name: 'Mesh OTAP Update',
    profile: 'common',
    direction: 'downlink',
    events: [],
    commandEndpoint: false,
    fields: [
      binaryUrlField,
      binaryVersionField,
      binarySHAField,
      {
        name: 'binaryFlags',
        type: 'Number',
        integer: true,
        required: false,
        // Only 1 is defined; 0 (no flag) is the other value a one-flag field can take.
        values: [
          { value: 0, meaning: 'no flags' },
          { value: 1, meaning: 'contains stack update' },
        ],
        description: 'Binary flags',
        example: 0,
      },
      {
        name: 'scratchpadSeqNumber',
        type: 'Number',
        integer: true,
        required: false,
        min: 1,
        max: 254,
        description: 'Sequence number of the new scratchpad',
        example: 13,
      },
      {
        name: 'targetNodeIds',
        type: 'Array',
        required: false,
        items: { type: 'Number', integer: true, min: 0 },
        description: 'Mesh node ids to update',
        example: [1234567, 1234568],
      },
    ],
  },
  {
    tsmId: 1303,
    name: 'Mesh OTAP Status',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      textField('result', 'Outcome (allowed values not shown by the seed)', 'ok'),
      textField('resultReason', 'Details', 'scratchpad 13 processed'),
    ],
  },
  {
    tsmId: 1312,
    name: 'Firmware Binary Version',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      // Not limited to 1300's two values: a device may report binaries we do not update.
      textField('binaryType', 'Which binary the version is of', 'stm32_mcu'),
      binaryVersionField,
    ],
  },
  {
    tsmId: 1313,
    name: 'Hardware Identification',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [textField('hwid', 'Hardware id', 'HW-REV-C')],
  },
] as const satisfies readonly MessageDefinition[];
