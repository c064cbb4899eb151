import { Type } from '@sinclair/typebox';
import { getRetention } from '../../../domain/retention/retention-service.js';
import { getOwnOrganization } from '../../../domain/identity/identity-queries.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { dataOf, errors } from '../schemas.js';

const days = (description: string) => Type.Integer({ minimum: 0, description });
const override = (description: string) => Type.Union([Type.Integer({ minimum: 0 }), Type.Null()], { description });

export const OrganizationSettings = Type.Object({
  organization_id: Type.String(),
  name: Type.String(),
  message_retention_days: days('Days raw messages are kept after arrival, in force (0: forever)'),
  rollup_retention_days: days('Days hourly and daily rollups are kept, in force (0: forever)'),
  message_retention_override: override("The organization's own setting; null: the platform's default (MESSAGE_RETENTION_DAYS)"),
  rollup_retention_override: override("The organization's own setting; null: the platform's default (ROLLUP_RETENTION_DAYS)"),
});

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
      return {
        data: {
          organization_id: organization.id,
          name: organization.name,
          message_retention_days: retention.messageRetentionDays,
          rollup_retention_days: retention.rollupRetentionDays,
          message_retention_override: retention.messageRetentionOverride,
          rollup_retention_override: retention.rollupRetentionOverride,
        },
      };
    },
  );
}
