import { eventDefinitions, getMessageDefinition } from '../../catalog/index.js';

/**
 * One example per request body and success body of each REST operation, by operationId, for the OpenAPI
 * document (error bodies get theirs by status in openapi.ts). Redocly's `no-invalid-media-type-examples` checks
 * each against its schema, so an example cannot drift from the route.
 */
const tuid = 'SENSOR-0042';

/** An audit entry (SPEC 14) as GET /audit and the export show it. */
export const auditEntryExample = {
  id: 42,
  at: '2026-11-20T08:00:00.000Z',
  organization_id: 'acme',
  actor: { type: 'user', id: '0b6f1c1e-5b7e-4a8e-9d51-3c1a9f0e2d11', label: 'manager@acme.example' },
  via: 'graphql',
  request_id: 'c0a8-1f2e',
  address: '203.0.113.7',
  action: 'thing.set_installation_status',
  target: { type: 'thing', id: tuid },
  changes: { status: { from: 'installed', to: 'retired' } },
  outcome: 'success',
  hash: '9fce8e88ee7ee258714d3b42e034224c86bbfb811d468ae2b0d135989f61ddfb',
};
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
  name: 'Boiler room 2, pump 4',
  labels: { site: 'helsinki-3', room: 'b-204' },
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
const gateway = {
  gateway_tuid: 'GW-1',
  last_seen: 1_700_000_000,
  silent_since: null,
  thing_count: 48,
  things_silent: 2,
  mqtt_username: 'acme-gateway',
};
const alertPeriod = {
  id: 4711,
  tuid,
  alert_type: 'gateway connection lost',
  severity: 'critical',
  rule_id: null,
  value: null,
  from: '2023-11-14T22:28:20',
  to: null,
  from_ts: 1_700_000_900,
  to_ts: null,
  gateway_tuid: 'GW-1',
  group_id: 'north',
  incident_id: 'gateway:GW-1:1700000000000',
  acknowledged: { by: 'installer@example.com', at: 1_700_001_000, note: 'Power cut at the site; electrician called' },
};
const webhook = {
  id: 'whe_6f1c0d2a9b8e4f7a8c3d2e1f0a9b8c7d',
  url: 'https://hooks.example.com/thingdesk',
  events: ['message.stored', 'alert.opened'],
  description: 'ERP integration',
  group_ids: ['north'],
  tuids: null,
  tsm_ids: null,
  batch_max_events: 1,
  batch_max_wait_ms: 1000,
  enabled: true,
  health: { state: 'healthy', failing_since: null, last_error: null, last_success_at: 1_700_000_500 },
  created_at: 1_700_000_000,
  updated_at: 1_700_000_000,
};
const webhookSecret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
const webhookAttempt = { at: 1_700_000_600, status_code: 200, duration_ms: 42, error: null, response_excerpt: 'ok' };

const mailChannel = {
  id: 'nch_5c4b3a291807f6e3e2d1c0b9a8f47e6d',
  name: 'shift lead',
  type: 'email',
  to: ['lead@example.com'],
  url: null,
  created_at: 1_700_000_000,
  updated_at: 1_700_000_000,
};
const alertChannels = { 'battery low': [mailChannel.id], 'gateway connection lost': [mailChannel.id] };

const alertRule = {
  id: 'rul_3e2d1c0b9a8f47e6d5c4b3a291807f6e',
  name: 'freezer too warm',
  tsm_id: 1100,
  field: 'temp',
  op: 'gt',
  threshold: 8,
  clear_threshold: 6,
  for_s: 600,
  scope: { group_ids: ['freezers'], tuids: null },
  severity: 'critical',
  enabled: true,
  channels: [],
  created_at: 1_700_000_000,
  updated_at: 1_700_000_000,
};

export const operationExamples: Readonly<Record<string, { request?: unknown; response: unknown }>> = {
  createClientToken: {
    request: { client_id: client, client_secret: 'hS1v…(the secret shown once at creation)' },
    response: { data: { token: 'eyJhbGciOiJFZERTQSIsImtpZCI6Ii4uLiJ9.eyJvcmciOiJhY21lIn0.c2lnbmF0dXJl', expires_in: 900 } },
  },
  listAlertPeriods: { response: { data: { alerts: [alertPeriod], next_cursor: 'YToxNzAwMDAwOTAwMDAwOjQ3MTE' } } },
  acknowledgeAlertPeriod: { request: { note: 'Power cut at the site; electrician called' }, response: { data: alertPeriod } },
  acknowledgeAlertPeriods: {
    request: { incident_id: 'gateway:GW-1:1700000000000', note: 'Power cut at the site; electrician called' },
    response: { data: { alerts: [alertPeriod] } },
  },
  applyToThings: {
    request: { action: 'set_group', tuids: [tuid, 'NOT A TUID'], group_id: 'north' },
    response: {
      data: {
        results: [
          { tuid, ok: true },
          { tuid: 'NOT A TUID', ok: false, code: 'VALIDATION_FAILED', message: 'tuid must match ^[A-Za-z0-9._:-]{1,64}$' },
        ],
      },
    },
  },
  listGateways: { response: { data: { gateways: [gateway], next_cursor: null } } },
  getGateway: { response: { data: { ...gateway, things: [thing] } } },
  listThings: { response: { data: { things: [thing], next_cursor: null, total: 1, total_is_estimate: false } } },
  getThing: { response: { data: thing } },
  importThings: {
    response: {
      data: {
        dry_run: true,
        applied: false,
        counts: { create: 1, update: 0, unchanged: 0, error: 1 },
        rows: [
          { row: 2, tuid, action: 'create', changes: { name: { from: null, to: 'Pump 4' } } },
          {
            row: 3,
            tuid: 'SENSOR-0043',
            action: 'error',
            errors: [
              { field: 'installation_status', message: 'The installation status cannot move from retired to installed; retired is final.' },
            ],
          },
        ],
      },
    },
  },
  updateThing: { request: { name: thing.name, labels: thing.labels }, response: { data: thing } },
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
  listAuditEntries: { response: { data: { entries: [auditEntryExample], next_cursor: 'YTo0MQ' } } },
  verifyAuditLog: { response: { data: { ok: false, checked: 41, first_invalid: { id: 42, reason: 'changed' } } } },
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
  createWebhook: {
    request: { url: webhook.url, events: webhook.events, description: webhook.description, group_ids: webhook.group_ids },
    response: { data: { ...webhook, secret: webhookSecret } },
  },
  listWebhooks: { response: { data: [webhook] } },
  getWebhook: { response: { data: webhook } },
  updateWebhook: { request: { enabled: true }, response: { data: webhook } },
  deleteWebhook: { response: { data: { id: webhook.id, deleted: true } } },
  rotateWebhookSecret: { response: { data: { ...webhook, secret: webhookSecret } } },
  testWebhook: { response: { data: webhookAttempt } },
  listWebhookDeliveries: {
    response: {
      data: [
        {
          id: 'whd_0a1b2c3d4e5f60718293a4b5c6d7e8f9',
          event_types: ['message.stored'],
          event_count: 1,
          status: 'succeeded',
          created_at: 1_700_000_600,
          next_attempt_at: null,
          attempts: [{ ...webhookAttempt, status_code: 503, error: 'HTTP 503', response_excerpt: null }, webhookAttempt],
        },
      ],
      next_cursor: null,
    },
  },
  replayWebhookDelivery: { response: { data: { replayed: 1 } } },
  replayWebhookDeliveries: { request: { since: 1_700_000_000 }, response: { data: { replayed: 3 } } },
  createAlertRule: {
    request: {
      name: alertRule.name,
      tsm_id: alertRule.tsm_id,
      field: alertRule.field,
      op: alertRule.op,
      threshold: alertRule.threshold,
      clear_threshold: alertRule.clear_threshold,
      for_s: alertRule.for_s,
      scope: { group_ids: ['freezers'] },
      severity: alertRule.severity,
    },
    response: { data: alertRule },
  },
  listAlertRules: { response: { data: [alertRule] } },
  getAlertRule: { response: { data: alertRule } },
  updateAlertRule: { request: { enabled: false }, response: { data: { ...alertRule, enabled: false } } },
  deleteAlertRule: { response: { data: { id: alertRule.id, deleted: true } } },
  createNotificationChannel: {
    request: { name: mailChannel.name, type: 'email', to: mailChannel.to },
    response: { data: mailChannel },
  },
  listNotificationChannels: { response: { data: [mailChannel] } },
  getNotificationChannel: { response: { data: mailChannel } },
  updateNotificationChannel: {
    request: { to: ['lead@example.com', 'night@example.com'] },
    response: { data: { ...mailChannel, to: ['lead@example.com', 'night@example.com'] } },
  },
  deleteNotificationChannel: { response: { data: { id: mailChannel.id, deleted: true } } },
  testNotificationChannel: { response: { data: { ...webhookAttempt, status_code: null, response_excerpt: '250 OK: queued' } } },
  listNotificationChannelDeliveries: {
    response: {
      data: [
        {
          id: 'whd_1b2c3d4e5f60718293a4b5c6d7e8f90a',
          event_types: ['alert.opened'],
          event_count: 1,
          status: 'succeeded',
          created_at: 1_700_000_600,
          next_attempt_at: null,
          attempts: [{ ...webhookAttempt, status_code: null, response_excerpt: '250 OK: queued' }],
        },
      ],
      next_cursor: null,
    },
  },
  updateOrganization: { request: { alert_channels: alertChannels }, response: { data: { alert_channels: alertChannels } } },
};
