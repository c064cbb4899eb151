import { eventDefinitions, getMessageDefinition } from '../../catalog/index.js';

/**
 * One example per request body and success body of each REST operation, by operationId, for the OpenAPI
 * document (error bodies get theirs by status in openapi.ts). Redocly's `no-invalid-media-type-examples` checks
 * each against its schema, so an example cannot drift from the route.
 */
const tuid = 'SENSOR-0042';
const client = 'client-3f9a1c2b7d4e';
const thing = {
  tuid,
  battery_level: 87,
  timestamp: 1_700_000_000,
  location: { lat: 60.1699, lon: 24.9384 },
  gateway_tuid: 'GW-1',
  version: '1.2.3',
  installation_status: 'installed',
  group_id: 'north',
};
const command = { tsmId: 1500, tsmEv: 30, transactionId: 77, measurementInterval: 60, reportInterval: 300 };
const sent = { ...command, tsmTs: 1_700_000_100, tsmDstTuid: tuid };
const tracked = {
  ...sent,
  status: 'applied',
  response: { tsmId: 1500, tsmEv: 31, tsmTs: 1_700_000_160, tsmTuid: tuid, transactionId: 77 },
  respondedAt: 1_700_000_160,
};
const catalogMessage = getMessageDefinition(1110);

export const operationExamples: Readonly<Record<string, { request?: unknown; response: unknown }>> = {
  createClientToken: {
    request: { client_id: client, client_secret: 'hS1v…(the secret shown once at creation)' },
    response: { data: { token: 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiJ9.eyJvcmciOiJhY21lIn0.c2lnbmF0dXJl', expires_in: 900 } },
  },
  listThings: { response: { data: { things: [thing], next_cursor: null } } },
  getThing: { response: { data: thing } },
  getFleetHealth: {
    response: {
      data: {
        generated_at: 1_700_000_000,
        window_days: 30,
        battery_below: 15,
        status_counts: { total: 120, new: 8, installed: 100, uninstalled: 5, quarantine: 2, retired: 5 },
        alerting: {
          thing_count: 2,
          alert_count: 2,
          alerts: [
            { tuid, alert_type: 'device connection lost', since: 1_699_996_400, since_local: '2023-11-14T23:13:20' },
            { tuid: 'SENSOR-0007', alert_type: 'battery low', since: 1_699_900_000, since_local: '2023-11-13T20:26:40' },
          ],
        },
        silent_gateways: { count: 0, gateways: [] },
        low_battery: { count: 1, things: [{ tuid: 'SENSOR-0007', battery_level: 12 }] },
        groups: [
          {
            group_id: 'north',
            thing_count: 60,
            installed: 55,
            online: 54,
            online_share: 0.9818,
            downtime_seconds: 36_000,
            uptime: 0.9998,
            battery: [
              { bucket: 'unknown', count: 1 },
              { bucket: '0-14', count: 1 },
              { bucket: '15-29', count: 3 },
              { bucket: '30-49', count: 10 },
              { bucket: '50-79', count: 20 },
              { bucket: '80-100', count: 20 },
            ],
          },
          {
            group_id: 'unassigned',
            thing_count: 60,
            installed: 45,
            online: 45,
            online_share: 1,
            downtime_seconds: 0,
            uptime: 1,
            battery: [
              { bucket: 'unknown', count: 0 },
              { bucket: '0-14', count: 0 },
              { bucket: '15-29', count: 0 },
              { bucket: '30-49', count: 5 },
              { bucket: '50-79', count: 20 },
              { bucket: '80-100', count: 20 },
            ],
          },
        ],
      },
    },
  },
  listThingMessages: {
    response: { data: [{ tsmId: 1110, tsmEv: 10, tsmTs: 1_700_000_000, tsmTuid: tuid, batl: 87.4, deploymentGroupId: 'north' }] },
  },
  getThingSeries: {
    response: {
      data: {
        tuid,
        tsmId: 12100,
        field: 'temp',
        bucket: '1h',
        segments: [{ from: 1_700_000_000, to: 1_700_007_199, bucket: '1h' }],
        points: [
          { t: 1_699_999_200, count: 60, min: 20.9, max: 21.6, avg: 21.25, first: 20.9, last: 21.6 },
          { t: 1_700_002_800, count: 60, min: 21.4, max: 22.1, avg: 21.8, first: 21.5, last: 22.0 },
        ],
      },
    },
  },
  getGroupSeries: {
    response: {
      data: {
        group_id: 'north',
        tsmId: 12100,
        field: 'temp',
        bucket: 'raw',
        segments: [{ from: 1_700_000_000, to: 1_700_000_120, bucket: 'raw' }],
        points: [
          { t: 1_700_000_000, count: 1, min: 21.3, max: 21.3, avg: 21.3, first: 21.3, last: 21.3 },
          { t: 1_700_000_060, count: 1, min: 21.4, max: 21.4, avg: 21.4, first: 21.4, last: 21.4 },
        ],
      },
    },
  },
  sendCommands: { request: [command], response: { data: { tuid, timestamp: 1_700_000_100, responsible: client, commands: [sent] } } },
  listCommandHistory: {
    response: { data: [{ tuid, timestamp: 1_700_000_100, responsible: client, command: tracked, commands: [tracked] }] },
  },
  setInstallationStatus: {
    request: { installation_status: 'installed' },
    response: { data: { tuid, installation_status: 'installed', group_id: 'north', timestamp: 1_700_000_200, responsible: client } },
  },
  listInstallationHistory: {
    response: {
      data: [
        { installation_status: 'installed', timestamp: 1_700_000_200, responsible: client },
        { installation_status: 'new', timestamp: 1_700_000_000, responsible: 'uplink' },
      ],
    },
  },
  createGroup: {
    request: { group_id: 'north', group_description: 'North site' },
    response: { data: { group_id: 'north', group_description: 'North site', created_at: 1_700_000_000 } },
  },
  listGroups: {
    response: {
      data: [
        { group_id: 'north', group_description: 'North site', thing_count: 12, created_at: 1_700_000_000 },
        { group_id: 'unassigned', group_description: null, thing_count: 3, created_at: null },
      ],
    },
  },
  renameGroup: { request: { group_id: 'north-east' }, response: { data: { group_id: 'north-east' } } },
  deleteGroup: { response: { data: { group_id: 'north', deleted: true } } },
  listGroupThings: { response: { data: { group_id: 'north', tuids: [tuid], things: [thing] } } },
  assignThingToGroup: { request: { group_id: 'north' }, response: { data: { tuid, group_id: 'north', installation_status: 'installed' } } },
  getThingGroup: { response: { data: { tuid, group_id: 'north' } } },
  getCatalog: { response: { data: { messages: [catalogMessage], events: eventDefinitions.slice(0, 1) } } },
  getCatalogMessage: { response: { data: catalogMessage } },
  listThingAlerts: { response: { data: [{ tuid, alert_type: 'low battery', alerts: [{ from: '2026-11-20T08:00:00', to: null }] }] } },
  listAlertingThings: { response: { data: { alerting_tuids: [tuid] } } },
  countActiveAlerts: { response: { data: { alert_count: 1 } } },
  getOrganization: {
    response: {
      data: {
        organization_id: 'acme',
        name: 'Acme',
        message_retention_days: 90,
        rollup_retention_days: 0,
        message_retention_override: 90,
        rollup_retention_override: null,
      },
    },
  },
};
