/** Common Profile, cellular information (1210-1212). */
import type { MessageDefinition } from '../types.js';
import { measurementField, textField } from './shared-fields.js';

export const commonCellularDefinitions = [
  {
    tsmId: 1210,
    name: 'Cellular Location Data',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      { name: 'lat', type: 'Number', required: false, min: -90, max: 90, unit: 'degrees', description: 'Latitude', example: 60.1699 },
      { name: 'lon', type: 'Number', required: false, min: -180, max: 180, unit: 'degrees', description: 'Longitude', example: 24.9384 },
      measurementField('lacr', 'Location accuracy (unit not shown by the seed)', 500),
    ],
  },
  {
    tsmId: 1211,
    name: 'Cellular RF Data',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      measurementField('cellRsrp', 'Reference signal received power', -95, 'dBm'),
      measurementField('cellRsrq', 'Reference signal received quality', -10, 'dB'),
      measurementField('cellSinr', 'Signal to interference plus noise ratio', 12, 'dB'),
      measurementField('cellRssi', 'Received signal strength', -70, 'dBm'),
      measurementField('cellRscp', 'Received signal code power', -80, 'dBm'),
      measurementField('cellEcn0', 'Energy per chip to noise', -6, 'dB'),
      measurementField('cellLac', 'Location area code', 4321),
      measurementField('cellId', 'Cell id', 123456),
      measurementField('cellTac', 'Tracking area code', 4321),
      textField('cellRat', 'Radio access technology', 'LTE-M'),
    ],
  },
  {
    tsmId: 1212,
    name: 'Cellular Identification',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      textField('imei', 'Modem IMEI', '490154203237518'),
      textField('imsi', 'SIM IMSI', '244051234567890'),
      textField('mcc_mnc', 'Mobile country and network code', '244-05'),
      textField('operatorName', 'Network operator name', 'Example Mobile'),
    ],
  },
] as const satisfies readonly MessageDefinition[];
