/** Every REST endpoint as a fuzz request generator, aimed mostly at the things and groups the REST fuzz file seeds. */
import fc from 'fast-check';
import { commandTsmIds, exampleMessage } from '../../src/catalog/index.js';
import { installationStatuses } from '../../src/domain/things/thing-types.js';
import { testBootstrap } from '../helpers/test-app.js';
import { pathSegment, queryString } from './http-request-parts.js';
import { deepJsonText, deepValue, mutatedBody } from './json-bodies.js';
import { anyJsonValue, longString, nastyNumber, nastyString, numberTexts, poolOrNasty } from './nasty-values.js';
import { bodyFor, request, type FuzzRequest } from './rest-requests.js';

/** Things and groups the REST fuzz file seeds, so generated requests often reach the domain. */
export const seededTuids = ['FZ-1', 'FZ-2', 'FZ-3'] as const;
export const seededGroups = ['fuzz-group', 'fuzz-other'] as const;
const tuidPool = [...seededTuids, 'NOPE-404', 'fz-1'];
const groupPool = [...seededGroups, 'unassigned', 'UNASSIGNED', 'no-such-group'];

const tuid = pathSegment(poolOrNasty(tuidPool));
const groupRef = pathSegment(poolOrNasty(groupPool));
const integerText = fc.oneof(fc.constantFrom(...numberTexts), fc.integer({ min: -5, max: 20_000 }).map(String), nastyString);
const unixText = fc.oneof(fc.constantFrom(...numberTexts), fc.integer({ min: 1_700_000_000, max: 1_900_000_000 }).map(String), nastyString);
const idListText = fc.oneof(
  fc.array(fc.oneof(fc.constantFrom(...numberTexts), fc.nat().map(String)), { minLength: 1, maxLength: 5 }).map((ids) => ids.join(',')),
  nastyString,
  fc.constantFrom(',', '1,,2', ' 1 , 2 ', '1;2', '99999999999', '1,'.repeat(1000)),
);
const exportQuery = queryString({
  format: fc.oneof(fc.constantFrom('csv', 'ndjson', 'CSV', ''), nastyString),
  messageid: idListText,
  eventid: idListText,
  from: unixText,
  to: unixText,
});
const statusValue = poolOrNasty(installationStatuses);

/** One command, valid or nearly so. */
const command: fc.Arbitrary<unknown> = mutatedBody(
  fc.oneof(
    fc.constantFrom(...commandTsmIds).map((tsmId) => exampleMessage(tsmId)),
    fc.record({
      tsmId: fc.constantFrom(...commandTsmIds),
      tsmEv: fc.oneof(fc.constant(30), nastyNumber),
      transactionId: fc.oneof(fc.nat(), nastyNumber),
    }),
    fc.record({
      tsmId: fc.oneof(nastyNumber, fc.constantFrom(1110, 1100, 0)),
      tsmEv: fc.constant(30),
      transactionId: fc.constant(1),
      tsmDstTuid: poolOrNasty(tuidPool),
    }),
  ) as fc.Arbitrary<Record<string, unknown>>,
);
const commandsBody: fc.Arbitrary<unknown> = fc.oneof(
  { weight: 6, arbitrary: fc.array(command, { minLength: 1, maxLength: 4 }) },
  {
    weight: 1,
    arbitrary: fc
      .constantFrom(0, 1, 99, 100, 101, 1000)
      .map((n) =>
        Array.from({ length: n }, (_, i) => ({ tsmId: 1500, tsmEv: 30, transactionId: i, measurementInterval: 60, reportInterval: 300 })),
      ),
  },
  { weight: 1, arbitrary: fc.constant(deepValue(500)) },
  { weight: 2, arbitrary: anyJsonValue },
);
const commandBase = { tsmId: 1500, tsmEv: 30, transactionId: 1 };

/** Every REST endpoint of the routes (method, path template, its inputs), named for the test list. */
export const endpoints: Record<string, fc.Arbitrary<FuzzRequest>> = {
  'POST /auth/client-token': request(
    'POST',
    fc.constant('/auth/client-token'),
    bodyFor(
      mutatedBody(
        fc.record({
          client_id: poolOrNasty([testBootstrap.BOOTSTRAP_CLIENT_ID]),
          client_secret: poolOrNasty([testBootstrap.BOOTSTRAP_CLIENT_SECRET]),
        }),
      ),
      { client_id: testBootstrap.BOOTSTRAP_CLIENT_ID, client_secret: testBootstrap.BOOTSTRAP_CLIENT_SECRET },
    ),
  ),
  'GET /things': request(
    'GET',
    queryString({
      group_id: poolOrNasty(groupPool),
      installation_status: statusValue,
      q: nastyString,
      alerting: fc.oneof(fc.constantFrom('true', 'false'), nastyString),
      limit: integerText,
      cursor: fc.oneof(nastyString, fc.base64String({ maxLength: 80 })),
    }).map((q) => `/things${q}`),
  ),
  'GET /things/{tuid}': request(
    'GET',
    tuid.map((t) => `/things/${t}`),
  ),
  'GET /things/{tuid}/messages': request(
    'GET',
    fc
      .tuple(tuid, queryString({ limit: integerText, messageid: idListText, eventid: idListText, from: unixText, to: unixText }))
      .map(([t, q]) => `/things/${t}/messages${q}`),
  ),
  'GET /things/{tuid}/messages/export': request(
    'GET',
    fc.tuple(tuid, exportQuery).map(([t, q]) => `/things/${t}/messages/export${q}`),
  ),
  'GET /groups/{groupid}/messages/export': request(
    'GET',
    fc.tuple(groupRef, exportQuery).map(([g, q]) => `/groups/${g}/messages/export${q}`),
  ),
  'POST /things/{tuid}/commands': request(
    'POST',
    tuid.map((t) => `/things/${t}/commands`),
    // 13200 takes free fields: deep JSON inside one gets past the catalog (text, so the client need not serialize it).
    bodyFor(
      commandsBody,
      commandBase,
      deepJsonText.map((deep) => `[{"tsmId":13200,"tsmEv":30,"transactionId":5,"free":${deep}}]`),
    ),
  ),
  'GET /things/{tuid}/commands': request(
    'GET',
    fc.tuple(tuid, queryString({ limit: integerText })).map(([t, q]) => `/things/${t}/commands${q}`),
  ),
  'POST /things/{tuid}/installations': request(
    'POST',
    tuid.map((t) => `/things/${t}/installations`),
    bodyFor(mutatedBody(fc.record({ installation_status: statusValue })), { installation_status: 'installed' }),
  ),
  'GET /things/{tuid}/installations': request(
    'GET',
    fc.tuple(tuid, queryString({ limit: integerText })).map(([t, q]) => `/things/${t}/installations${q}`),
  ),
  'POST /groups': request(
    'POST',
    fc.constant('/groups'),
    bodyFor(
      mutatedBody(
        fc.record(
          { group_id: poolOrNasty(groupPool), group_description: fc.oneof(nastyString, fc.constant(null), longString) },
          { requiredKeys: ['group_id'] },
        ),
      ),
      { group_id: 'fz-new', group_description: 'd' },
    ),
  ),
  'GET /groups': request(
    'GET',
    queryString({ q: nastyString, limit: integerText }).map((q) => `/groups${q}`),
  ),
  'POST /groups/{groupid}/rename': request(
    'POST',
    groupRef.map((g) => `/groups/${g}/rename`),
    bodyFor(mutatedBody(fc.record({ group_id: poolOrNasty(groupPool) })), { group_id: 'fz-renamed' }),
  ),
  'DELETE /groups/{groupid}': request(
    'DELETE',
    groupRef.map((g) => `/groups/${g}`),
    fc.oneof(fc.record({ body: fc.constant(undefined), contentType: fc.constant(undefined) }), bodyFor(anyJsonValue, { a: 1 })),
  ),
  'GET /groups/{groupid}/things': request(
    'GET',
    groupRef.map((g) => `/groups/${g}/things`),
  ),
  'POST /things/{tuid}/group': request(
    'POST',
    tuid.map((t) => `/things/${t}/group`),
    bodyFor(mutatedBody(fc.record({ group_id: poolOrNasty(groupPool) })), { group_id: 'fuzz-group' }),
  ),
  'GET /things/{tuid}/group': request(
    'GET',
    tuid.map((t) => `/things/${t}/group`),
  ),
  'GET /catalog': request(
    'GET',
    queryString({ x: nastyString }).map((q) => `/catalog${q}`),
  ),
  'GET /catalog/{tsmId}': request(
    'GET',
    pathSegment(fc.oneof(fc.constantFrom('1500', '1110', '13200', '99999'), integerText)).map((id) => `/catalog/${id}`),
  ),
  'GET /things/{tuid}/alerts': request(
    'GET',
    fc.tuple(tuid, queryString({ from: unixText, to: unixText })).map(([t, q]) => `/things/${t}/alerts${q}`),
  ),
  'GET /things/alerts': request(
    'GET',
    queryString({ x: nastyString }).map((q) => `/things/alerts${q}`),
  ),
  'GET /things/alerts/count': request(
    'GET',
    queryString({ x: nastyString }).map((q) => `/things/alerts/count${q}`),
  ),
  'GET /fleet/health': request(
    'GET',
    queryString({ days: integerText, limit: integerText, battery_below: integerText }).map((q) => `/fleet/health${q}`),
  ),
};
