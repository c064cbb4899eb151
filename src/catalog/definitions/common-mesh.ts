/** Common Profile, mesh diagnostics (1220-1222): reports, so every field is an optional number. */
import type { MessageDefinition } from '../types.js';
import { measurementField, nodeRoleFlags } from './shared-fields.js';

export const commonMeshDefinitions = [
  {
    tsmId: 1220,
    name: 'Mesh Node Diagnostics',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      measurementField('nodeAccessCycle', 'Current access cycle (unit not shown by the seed)', 2000),
      {
        name: 'nodeRole',
        type: 'Number',
        integer: true,
        required: false,
        min: 0,
        max: 255,
        flags: nodeRoleFlags,
        description: 'Role bit flags; decode with decodeNodeRole',
        example: 0x85,
      },
      measurementField('nodeVoltage', 'Supply voltage', 3.0),
      measurementField('nodeMaxBufferUsage', 'Maximum buffer usage', 12),
      measurementField('nodeAverageBufferUsage', 'Average buffer usage', 3),
      measurementField('nodeMemAllocFails', 'Memory allocation failures', 0),
      measurementField('nodeScannings', 'Neighbour scans', 4),
      measurementField('nodeDroppedPackets', 'Dropped packets', 0),
      measurementField('nodeDutyCycle', 'Radio duty cycle', 1),
      measurementField('nodeCurrentAntenna', 'Antenna in use', 0),
    ],
  },
  {
    tsmId: 1221,
    name: 'Mesh Scratchpad Sequence',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      {
        name: 'scratchpadSeqNumber',
        type: 'Number',
        integer: true,
        required: false,
        // A report may carry any byte (e.g. 0 before the first update); 1..254 is what 1302 may send.
        min: 0,
        max: 255,
        description: 'Sequence number of the stored scratchpad (one byte)',
        example: 12,
      },
    ],
  },
  {
    tsmId: 1222,
    name: 'Mesh Traffic Diagnostics',
    profile: 'common',
    direction: 'uplink',
    events: [],
    commandEndpoint: false,
    fields: [
      measurementField('nodeAccessCycle', 'Current access cycle (unit not shown by the seed)', 2000),
      measurementField('nodeClusterChannel', 'Cluster channel', 5),
      measurementField('nodeChannelReliability', 'Channel reliability', 98),
      measurementField('nodeRxAmount', 'Packets received', 120),
      measurementField('nodeTxAmount', 'Packets sent', 118),
      measurementField('nodeAlohaRxRatio', 'ALOHA reception ratio', 95),
      measurementField('nodeReservedRxSuccessRatio', 'Reserved-slot reception success ratio', 99),
    ],
  },
] as const satisfies readonly MessageDefinition[];
