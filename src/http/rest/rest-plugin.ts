import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox';
import type { FastifyInstance } from 'fastify';
import { limitAndAuthenticate } from './authenticate.js';
import { registerAuditRoutes } from './routes/audit-routes.js';
import { addAuditScope, recordDeniedRequests } from '../audit-scope.js';
import type { RestDeps } from './rest-deps.js';
import { registerAlertRoutes } from './routes/alert-routes.js';
import { registerAlertWorkRoutes } from './routes/alert-work-routes.js';
import { registerGatewayRoutes } from './routes/gateway-routes.js';
import { registerThingBulkRoutes } from './routes/thing-bulk-routes.js';
import { registerAuthRoutes } from './routes/auth-routes.js';
import { registerCatalogRoutes } from './routes/catalog-routes.js';
import { registerCommandRoutes } from './routes/command-routes.js';
import { registerFleetRoutes } from './routes/fleet-routes.js';
import { registerGroupRoutes } from './routes/group-routes.js';
import { registerInstallationRoutes } from './routes/installation-routes.js';
import { registerMessageExportRoutes } from './routes/message-export-routes.js';
import { registerMessageRoutes } from './routes/message-routes.js';
import { registerSeriesRoutes } from './routes/series-routes.js';
import { registerOrganizationRoutes } from './routes/organization-routes.js';
import { registerThingExportRoutes, registerThingImportRoutes } from './routes/thing-import-routes.js';
import { registerThingRoutes } from './routes/thing-routes.js';
import { registerWebhookRoutes } from './routes/webhook-routes.js';
import { registerAlertRuleRoutes } from './routes/alert-rule-routes.js';
import { registerNotificationChannelRoutes } from './routes/notification-channel-routes.js';
import { CatalogEvent, CatalogField, CatalogMessage } from './catalog-schemas.js';
import { ErrorBody } from './schemas.js';

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A route callable without a token (only the client-token endpoint). */
    public?: boolean;
  }
}

/**
 * The REST interface of seed 000 under REST_BASE_PATH. Every route but the token endpoint needs a client token;
 * each route decodes its input, calls one domain function and shapes the answer.
 */
export function registerRest(app: FastifyInstance, deps: RestDeps): void {
  for (const schema of [ErrorBody, CatalogField, CatalogMessage, CatalogEvent]) app.addSchema(schema);
  app.register(
    async (scope) => {
      const rest = scope.withTypeProvider<TypeBoxTypeProvider>();
      rest.decorateRequest('client', null as never);
      rest.addHook('onRequest', async (request) => limitAndAuthenticate(request, deps, request.routeOptions.config.public !== true));
      addAuditScope(rest, 'rest', (request) => request.client ?? undefined);
      recordDeniedRequests(rest, deps, (request) => request.client ?? undefined);
      registerAuthRoutes(rest, deps);
      registerThingRoutes(rest, deps);
      registerThingBulkRoutes(rest, deps);
      registerThingImportRoutes(rest, deps);
      registerThingExportRoutes(rest, deps);
      registerMessageRoutes(rest, deps);
      registerMessageExportRoutes(rest, deps);
      registerSeriesRoutes(rest, deps);
      registerCommandRoutes(rest, deps);
      registerInstallationRoutes(rest, deps);
      registerGroupRoutes(rest, deps);
      registerCatalogRoutes(rest);
      registerAlertRoutes(rest, deps);
      registerAlertWorkRoutes(rest, deps);
      registerGatewayRoutes(rest, deps);
      registerOrganizationRoutes(rest, deps);
      registerFleetRoutes(rest, deps);
      registerAuditRoutes(rest, deps);
      registerWebhookRoutes(rest, deps);
      registerAlertRuleRoutes(rest, deps);
      registerNotificationChannelRoutes(rest, deps);
    },
    { prefix: deps.config.restBasePath },
  );
}
