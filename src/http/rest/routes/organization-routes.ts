import { Type } from '@sinclair/typebox';
import { getRetention } from '../../../domain/retention/retention-service.js';
import { getOwnOrganization } from '../../../domain/identity/identity-queries.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { dataOf, errors } from '../schemas.js';
import { alertTypes } from '../../../domain/alerts/alert-types.js';
import { getAlertChannels, setAlertChannels } from '../../../domain/channels/channel-service.js';

const days = (description: string) => Type.Integer({ minimum: 0, description });
const override = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });

const ChannelIds = Type.Array(Type.String(), { maxItems: 20 });
const alertChannelsOf = (description: string) =>
  Type.Object(Object.fromEntries(alertTypes.map((t) => [t, Type.Optional(ChannelIds)])), { additionalProperties: false, description });
const AlertChannels = alertChannelsOf('The notification channels each built-in alert type notifies when it opens or closes');

export const OrganizationSettings = Type.Object({
  organization_id: Type.String(),
  name: Type.String(),
  message_retention_days: days('Days raw messages are kept after arrival, in force (0: forever)'),
  rollup_retention_days: days('Days hourly and daily rollups are kept, in force (0: forever)'),
  message_retention_override: override("The organization's own setting; null: the platform's default (MESSAGE_RETENTION_DAYS)"),
  rollup_retention_override: override("The organization's own setting; null: the platform's default (ROLLUP_RETENTION_DAYS)"),
  alert_channels: Type.Optional(
    alertChannelsOf(
      'The notification channels each built-in alert type notifies (PATCH /organization sets them); only for Managers and API clients, who see the channels',
    ),
  ),
});

const OrganizationPatch = Type.Object({ alert_channels: AlertChannels }, { additionalProperties: false });

/** `GET /organization`: the caller's organization and its settings (retention); Managers change them over GraphQL or the CLI. */
export function registerOrganizationRoutes(app: RestApp, deps: RestDeps): void {
  app.get(
    '/organization',
    {
      schema: {
        operationId: 'getOrganization',
        tags: ['organization'],
        summary: "The caller's organization and its settings: how long its data is kept",
        response: { 200: dataOf(OrganizationSettings), ...errors(401, 404, 429) },
      },
    },
    async (request) => {
      const organization = await getOwnOrganization(deps, request.client);
      const retention = await getRetention(deps, organization.id);
      const alertChannels = await getAlertChannels(deps, request.client);
      return {
        data: {
          organization_id: organization.id,
          name: organization.name,
          message_retention_days: retention.messageRetentionDays,
          rollup_retention_days: retention.rollupRetentionDays,
          message_retention_override: retention.messageRetentionOverride,
          rollup_retention_override: retention.rollupRetentionOverride,
          ...(alertChannels && { alert_channels: alertChannels }),
        },
      };
    },
  );

  app.patch(
    '/organization',
    {
      config: { fieldNames: { alertChannels: 'alert_channels' } },
      schema: {
        operationId: 'updateOrganization',
        tags: ['organization'],
        summary: 'Set which notification channels the built-in alerts notify (Managers)',
        body: OrganizationPatch,
        response: { 200: dataOf(Type.Object({ alert_channels: AlertChannels })), ...errors(400, 401, 403, 429) },
      },
    },
    async (request) => ({
      data: { alert_channels: await setAlertChannels(deps, request.client, request.body.alert_channels) },
    }),
  );
}
