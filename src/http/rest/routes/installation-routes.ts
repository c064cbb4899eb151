import { Type } from '@sinclair/typebox';
import {
  installationHistoryLimit,
  listInstallationHistory,
  setInstallationStatus,
} from '../../../domain/installations/installation-service.js';
import { installationStatuses } from '../../../domain/things/thing-types.js';
import { presentInstallationChange, presentInstallationEntry } from '../presenters.js';
import type { RestApp, RestDeps } from '../rest-deps.js';
import { TuidParams, dataOf, errors } from '../schemas.js';

const InstallationStatus = Type.String({
  enum: [...installationStatuses],
  description: 'new, installed, uninstalled, quarantine or retired',
});

const SetStatusBody = Type.Object({ installation_status: InstallationStatus }, { additionalProperties: false });

export const InstallationChange = Type.Object({
  tuid: Type.String(),
  installation_status: InstallationStatus,
  group_id: Type.String({ description: '`unassigned` for a thing in no group' }),
  timestamp: Type.Integer({ description: 'Unix seconds of the entry that set the current status' }),
  responsible: Type.String(),
});

export const InstallationEntrySchema = Type.Object({
  installation_status: InstallationStatus,
  timestamp: Type.Integer({ description: 'Unix seconds' }),
  responsible: Type.String({ description: 'client id, user e-mail, or `uplink` for the first sighting' }),
});

const HistoryQuery = Type.Object({
  limit: Type.Optional(
    Type.Integer({
      minimum: installationHistoryLimit.min,
      maximum: installationHistoryLimit.max,
      description: 'newest N entries; absent: the whole history',
    }),
  ),
});

/** Endpoints 7 and 8: set the installation status of a thing, and read its history (newest first). */
export function registerInstallationRoutes(app: RestApp, deps: RestDeps): void {
  app.post(
    '/things/:tuid/installations',
    {
      config: { fieldNames: { status: 'installation_status' } },
      schema: {
        operationId: 'setInstallationStatus',
        tags: ['installations'],
        summary: 'Set the installation status of a thing (claims a thing nobody owns)',
        params: TuidParams,
        body: SetStatusBody,
        response: { 200: dataOf(InstallationChange), ...errors(400, 401, 404, 409, 429) },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      return {
        data: presentInstallationChange(
          await setInstallationStatus(deps, request.client, { tuid, status: request.body.installation_status }),
        ),
      };
    },
  );

  app.get(
    '/things/:tuid/installations',
    {
      schema: {
        operationId: 'listInstallationHistory',
        tags: ['installations'],
        summary: 'Read the installation status history of a thing, newest first',
        params: TuidParams,
        querystring: HistoryQuery,
        response: { 200: dataOf(Type.Array(InstallationEntrySchema)), ...errors(400, 401, 404, 429) },
      },
    },
    async (request) => {
      const { tuid } = request.params;
      const { limit } = request.query;
      return { data: (await listInstallationHistory(deps, request.client, { tuid, limit })).map(presentInstallationEntry) };
    },
  );
}
