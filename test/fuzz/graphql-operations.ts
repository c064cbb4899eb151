import fc from 'fast-check';
import { installationStatuses } from '../../src/domain/things/thing-types.js';
import {
  anyJsonValue,
  contentType,
  deepJsonText,
  injectionStrings,
  nastyNumber,
  nastyString,
  nonJsonText,
  numberTexts,
  poolOrNasty,
} from './arbitraries.js';

/** Things and groups the GraphQL fuzz file seeds. */
export const seededTuids = ['GQ-1', 'GQ-2'] as const;
export const seededGroup = 'gq-group';
const tuidPool = [...seededTuids, 'NOPE-404'];
const groupPool = [seededGroup, 'gq-other', 'unassigned', 'nope-group'];

/** The object types of type-defs.ts and their fields (null: a scalar or enum; a name: that object type). */
const objectTypes: Record<string, Record<string, string | null>> = {
  User: { id: null, email: null, role: null, organizationId: null },
  Organization: { id: null, name: null, retention: 'Retention' },
  Retention: { messageRetentionDays: null, rollupRetentionDays: null, messageRetentionOverride: null, rollupRetentionOverride: null },
  Location: { lat: null, lon: null },
  Thing: {
    tuid: null,
    batteryLevel: null,
    timestamp: null,
    location: 'Location',
    gatewayTuid: null,
    version: null,
    installationStatus: null,
    groupId: null,
  },
  ThingEdge: { cursor: null, node: 'Thing' },
  PageInfo: { hasNextPage: null, endCursor: null },
  ThingConnection: { edges: 'ThingEdge', nodes: 'Thing', pageInfo: 'PageInfo' },
  Group: { groupId: null, description: null, thingCount: null, createdAt: null },
  GroupThings: { groupId: null, tuids: null, things: 'Thing' },
  AssignmentProblem: { code: null, message: null },
  GroupAssignment: { tuid: null, thing: 'Thing', problem: 'AssignmentProblem' },
  AlertPeriod: { from: null, to: null },
  AlertRecord: { tuid: null, alertType: null, alerts: 'AlertPeriod' },
  StatusCounts: { total: null, installed: null },
  ActiveAlert: { tuid: null, type: null, since: null, sinceLocal: null },
  FleetAlerting: { thingCount: null, alerts: 'ActiveAlert' },
  GroupHealth: { groupId: null, installed: null, onlineShare: null, uptime: null },
  FleetHealth: { generatedAt: null, statusCounts: 'StatusCounts', alerting: 'FleetAlerting', groups: 'GroupHealth' },
  InstallationResult: { tuid: null, installationStatus: null, groupId: null, timestamp: null, responsible: null },
  InstallationHistoryEntry: { installationStatus: null, timestamp: null, responsible: null },
  SendCommandsResult: { tuid: null, timestamp: null, responsible: null, commands: null },
  CommandRecord: { tuid: null, timestamp: null, responsible: null, command: null, commands: null },
  ApiClientCredentials: { clientId: null, clientSecret: null },
  ApiClient: { clientId: null, name: null, createdAt: null, revoked: null },
  MqttCredentialSecret: { username: null, password: null, kind: null },
  MqttCredential: { username: null, kind: null, createdAt: null, revoked: null },
  PlatformInstance: { id: null, version: null, startedAt: null, live: null, consumerSlots: null, leases: null },
  Deployment: { registered: null, instances: 'PlatformInstance' },
  LoginResult: { accessToken: null, expiresIn: null, refreshExpiresIn: null, refreshToken: null, organizationId: null },
  RefreshTokenResult: { accessToken: null, expiresIn: null, refreshExpiresIn: null, refreshToken: null },
};

type ArgType =
  | 'ID!'
  | 'ID'
  | 'String'
  | 'String!'
  | 'Int'
  | 'Int!'
  | '[Int!]'
  | '[JSON!]!'
  | '[ID!]!'
  | 'Role!'
  | 'MqttCredentialKind!'
  | 'LoginInput!'
  | 'RefreshTokenInput!';

interface Operation {
  kind: 'query' | 'mutation';
  name: string;
  args: Record<string, ArgType>;
  /** An object type of `objectTypes`, or null for a scalar result. */
  returns: string | null;
  weight?: number;
}

/** Every query and mutation of type-defs.ts but `logout` (it would end the fuzzer's own sessions). */
const operations: readonly Operation[] = [
  { kind: 'query', name: '_empty', args: {}, returns: null },
  { kind: 'query', name: 'me', args: {}, returns: 'User' },
  { kind: 'query', name: 'organization', args: {}, returns: 'Organization' },
  { kind: 'query', name: 'thing', args: { tuid: 'ID!' }, returns: 'Thing', weight: 3 },
  {
    kind: 'query',
    name: 'things',
    args: { first: 'Int', after: 'String', groupId: 'String', installationStatus: 'String', q: 'String' },
    returns: 'ThingConnection',
    weight: 3,
  },
  {
    kind: 'query',
    name: 'messages',
    args: { tuid: 'ID!', messageIds: '[Int!]', eventIds: '[Int!]', from: 'Int', to: 'Int', limit: 'Int!' },
    returns: null,
    weight: 3,
  },
  { kind: 'query', name: 'alerts', args: { tuid: 'ID!', from: 'Int', to: 'Int' }, returns: 'AlertRecord', weight: 2 },
  { kind: 'query', name: 'alertingThings', args: {}, returns: null },
  { kind: 'query', name: 'alertCount', args: {}, returns: null },
  { kind: 'query', name: 'fleetHealth', args: { days: 'Int', limit: 'Int', batteryBelow: 'Int' }, returns: 'FleetHealth' },
  { kind: 'query', name: 'groups', args: { q: 'String', limit: 'Int' }, returns: 'Group', weight: 2 },
  { kind: 'query', name: 'group', args: { groupId: 'String!' }, returns: 'GroupThings', weight: 2 },
  { kind: 'query', name: 'commands', args: { tuid: 'ID!', limit: 'Int' }, returns: 'CommandRecord', weight: 2 },
  { kind: 'query', name: 'installations', args: { tuid: 'ID!', limit: 'Int' }, returns: 'InstallationHistoryEntry', weight: 2 },
  { kind: 'query', name: 'catalog', args: {}, returns: null },
  { kind: 'query', name: 'users', args: {}, returns: 'User' },
  { kind: 'query', name: 'apiClients', args: {}, returns: 'ApiClient' },
  { kind: 'query', name: 'mqttCredentials', args: {}, returns: 'MqttCredential' },
  { kind: 'query', name: 'deployment', args: {}, returns: 'Deployment' },
  { kind: 'mutation', name: 'login', args: { loginInput: 'LoginInput!' }, returns: 'LoginResult' },
  { kind: 'mutation', name: 'refreshToken', args: { refreshTokenInput: 'RefreshTokenInput!' }, returns: 'RefreshTokenResult' },
  { kind: 'mutation', name: 'setInstallationStatus', args: { tuid: 'ID!', status: 'String!' }, returns: 'InstallationResult', weight: 3 },
  { kind: 'mutation', name: 'assignThingToGroup', args: { tuid: 'ID!', groupId: 'String!' }, returns: 'Thing', weight: 3 },
  { kind: 'mutation', name: 'assignThingsToGroup', args: { groupId: 'String!', tuids: '[ID!]!' }, returns: 'GroupAssignment', weight: 2 },
  { kind: 'mutation', name: 'sendCommands', args: { tuid: 'ID!', commands: '[JSON!]!' }, returns: 'SendCommandsResult', weight: 4 },
  { kind: 'mutation', name: 'createGroup', args: { groupId: 'String!', description: 'String' }, returns: 'Group', weight: 3 },
  { kind: 'mutation', name: 'renameGroup', args: { groupId: 'String!', newGroupId: 'String!' }, returns: 'Group', weight: 2 },
  { kind: 'mutation', name: 'deleteGroup', args: { groupId: 'String!' }, returns: null, weight: 2 },
  { kind: 'mutation', name: 'createUser', args: { email: 'String!', password: 'String!', role: 'Role!' }, returns: 'User', weight: 2 },
  { kind: 'mutation', name: 'setUserRole', args: { userId: 'ID!', role: 'Role!' }, returns: 'User' },
  { kind: 'mutation', name: 'deleteUser', args: { userId: 'ID!' }, returns: null },
  { kind: 'mutation', name: 'createApiClient', args: { name: 'String!' }, returns: 'ApiClientCredentials' },
  { kind: 'mutation', name: 'revokeApiClient', args: { clientId: 'String!' }, returns: null },
  {
    kind: 'mutation',
    name: 'createMqttCredential',
    args: { kind: 'MqttCredentialKind!', username: 'String' },
    returns: 'MqttCredentialSecret',
  },
  { kind: 'mutation', name: 'revokeMqttCredential', args: { username: 'String!' }, returns: null },
  { kind: 'mutation', name: 'setRetention', args: { messageRetentionDays: 'Int', rollupRetentionDays: 'Int' }, returns: 'Retention' },
];

/** A value of the right kind for an argument, as a JavaScript value (for variables). */
function valueFor(name: string, type: ArgType): fc.Arbitrary<unknown> {
  const base = type.replace(/!$/, '');
  if (name === 'tuid') return poolOrNasty(tuidPool);
  if (name === 'groupId' || name === 'newGroupId') return poolOrNasty(groupPool);
  if (name === 'status' || name === 'installationStatus') return poolOrNasty(installationStatuses);
  if (name === 'email') return fc.oneof(fc.emailAddress(), nastyString);
  if (name === 'password') return fc.oneof(fc.string({ minLength: 8, maxLength: 40 }), nastyString);
  switch (base) {
    case 'Int':
      return fc.oneof(fc.integer({ min: -5, max: 20_000 }), nastyNumber, nastyString);
    case '[Int!]':
      return fc.oneof(fc.array(fc.oneof(fc.nat(), nastyNumber), { maxLength: 5 }), anyJsonValue);
    case '[ID!]':
      return fc.oneof(fc.array(poolOrNasty(tuidPool), { maxLength: 5 }), anyJsonValue);
    case '[JSON!]':
      return fc.oneof(
        fc.array(
          fc.oneof(
            fc.record({
              tsmId: fc.constantFrom(1500, 1501, 12200, 13200),
              tsmEv: fc.constant(30),
              transactionId: fc.nat(),
              measurementInterval: fc.constant(60),
              reportInterval: fc.constant(300),
            }),
            fc.dictionary(nastyString, anyJsonValue, { maxKeys: 4 }),
            anyJsonValue,
          ),
          { maxLength: 4 },
        ),
        anyJsonValue,
      );
    case 'Role':
      return fc.oneof(fc.constantFrom('MANAGER', 'INSTALLER', 'VIEWER', 'ADMIN', 'manager', 'Manager'), nastyString);
    case 'MqttCredentialKind':
      return fc.oneof(fc.constantFrom('GATEWAY', 'INTEGRATION', 'gateway', 'OTHER'), nastyString);
    case 'LoginInput':
      return fc.oneof(
        fc.record(
          {
            email: fc.oneof(fc.constant('nobody@acme.test'), fc.emailAddress(), nastyString),
            organizationName: poolOrNasty(['Acme', 'acme']),
            password: nastyString,
          },
          { requiredKeys: [] },
        ),
        anyJsonValue,
      );
    case 'RefreshTokenInput':
      return fc.oneof(
        fc.record(
          { organizationId: poolOrNasty(['acme']), refreshToken: fc.oneof(nastyString, fc.constant('eyJhbGciOiJFZERTQSJ9.e30.AAAA')) },
          { requiredKeys: [] },
        ),
        anyJsonValue,
      );
    default:
      return nastyString;
  }
}

/** A JavaScript value written as a GraphQL literal (object keys made into names; unrepresentable numbers kept as text). */
function literalOf(value: unknown): string {
  if (value === null || value === undefined) return 'null';
  if (typeof value === 'string') return JSON.stringify(value);
  if (typeof value === 'number') return Number.isFinite(value) ? String(value) : 'null';
  if (typeof value === 'boolean') return String(value);
  if (Array.isArray(value)) return `[${value.map(literalOf).join(', ')}]`;
  const fields = Object.entries(value as Record<string, unknown>).map(
    ([key, field]) => `${/^[_A-Za-z][_0-9A-Za-z]*$/.test(key) ? key : `k${key.length}`}: ${literalOf(field)}`,
  );
  return `{${fields.join(', ')}}`;
}

/** Literal text that is the wrong kind for nearly any argument, or not a value at all. */
const wrongLiteral = fc.constantFrom(
  'null',
  'true',
  '1.5',
  '[]',
  '{}',
  '"x"',
  'ENUMVAL',
  '$undefinedVar',
  '99999999999999999999',
  '-1',
  '[[[1]]]',
  '{a: {b: {c: [1, "2", null]}}}',
  '"""block\nstring"""',
  '"\\ud800"',
  '"\\u0000"',
);

const enumValue = (type: ArgType) =>
  type.startsWith('Role') ? fc.constantFrom('MANAGER', 'VIEWER', 'ADMIN') : fc.constantFrom('GATEWAY', 'INTEGRATION', 'OTHER');

/** A literal for an argument: usually of the right kind (with nasty contents), sometimes anything. */
function literalFor(name: string, type: ArgType): fc.Arbitrary<string> {
  const right =
    type.startsWith('Role') || type.startsWith('MqttCredentialKind')
      ? enumValue(type)
      : type.startsWith('Int')
        ? fc.oneof(fc.constantFrom(...numberTexts), valueFor(name, type).map(literalOf))
        : valueFor(name, type).map(literalOf);
  return fc.oneof({ weight: 5, arbitrary: right }, { weight: 1, arbitrary: wrongLiteral });
}

/** A selection set for an object type: some of its fields, maybe aliases, __typename, unknown fields, fragments. */
function selectionFor(type: string | null, depth: number): fc.Arbitrary<string> {
  if (type === null) return fc.oneof({ weight: 9, arbitrary: fc.constant('') }, { weight: 1, arbitrary: fc.constant(' { nope }') });
  const fields = objectTypes[type]!;
  const names = Object.keys(fields);
  const one: fc.Arbitrary<string> = fc.oneof(
    {
      weight: 8,
      arbitrary: fc.constantFrom(...names).chain((name) => {
        const child = fields[name]!;
        if (child === null || depth >= 4) return fc.constant(child === null ? name : `${name} { __typename }`);
        return selectionFor(child, depth + 1).map((inner) => `${name}${inner}`);
      }),
    },
    {
      weight: 1,
      arbitrary: fc.constantFrom(
        '__typename',
        'nope',
        'a1: __typename',
        `... on ${type} { __typename }`,
        '... on Nope { x }',
        `${names[0]} { x }`,
        `${names[0]}(junk: 1)`,
        `${names[0]} @skip(if: true)`,
        `${names[0]} @include(if: $nope)`,
      ),
    },
  );
  return fc.array(one, { minLength: 1, maxLength: 4 }).map((parts) => ` { ${parts.join(' ')} }`);
}

export interface GeneratedOperation {
  kind: 'query' | 'mutation';
  query: string;
  variables: unknown;
  operationName: unknown;
  /** Response keys of the root fields (aliases), to tell which mutations were refused. */
  rootKeys: string[];
}

const operationArb = fc.oneof(...operations.map((operation) => ({ weight: operation.weight ?? 1, arbitrary: fc.constant(operation) })));

/** One root field with literal arguments. */
function literalField(operation: Operation, alias: string | undefined): fc.Arbitrary<string> {
  const args = Object.entries(operation.args).map(([name, type]) =>
    fc.oneof(
      { weight: 5, arbitrary: literalFor(name, type).map((literal) => `${name}: ${literal}`) },
      { weight: 1, arbitrary: fc.constant('') },
    ),
  );
  const extra = fc.oneof(
    { weight: 8, arbitrary: fc.constant('') },
    { weight: 1, arbitrary: fc.constantFrom('junk: 1', 'tuid: "GQ-1"', 'limit: 5') },
  );
  return fc.tuple(fc.tuple(...args), extra, selectionFor(operation.returns, 1)).map(([written, junk, selection]) => {
    const list = [...written, junk].filter(Boolean);
    return `${alias ? `${alias}: ` : ''}${operation.name}${list.length > 0 ? `(${list.join(', ')})` : ''}${selection}`;
  });
}

/** A document of one operation with literal arguments (one to three root fields of the same kind, aliased). */
const literalOperation: fc.Arbitrary<GeneratedOperation> = fc
  .tuple(operationArb, fc.integer({ min: 1, max: 3 }), fc.boolean())
  .chain(([first, count, named]) => {
    const sameKind = fc.constantFrom(...operations.filter((operation) => operation.kind === first.kind));
    return fc.tuple(fc.constant(first), fc.array(sameKind, { minLength: count - 1, maxLength: count - 1 }), fc.constant(named));
  })
  .chain(([first, more, named]) => {
    const all = [first, ...more];
    const aliases = all.map((_operation, index) => (all.length > 1 ? `a${index}` : undefined));
    return fc.tuple(...all.map((operation, index) => literalField(operation, aliases[index]))).map((fields) => ({
      kind: first.kind,
      query: `${first.kind === 'mutation' || named ? `${first.kind} Fuzz ` : ''}{ ${fields.join(' ')} }`,
      variables: undefined,
      operationName: named ? 'Fuzz' : undefined,
      rootKeys: all.map((operation, index) => aliases[index] ?? operation.name),
    }));
  });

/** A document with variables: declared types right or wrong, values from anywhere. */
const variableOperation: fc.Arbitrary<GeneratedOperation> = operationArb.chain((operation) => {
  const entries = Object.entries(operation.args);
  const declared = entries.map(([, type]) =>
    fc.oneof(
      { weight: 6, arbitrary: fc.constant<string>(type) },
      { weight: 1, arbitrary: fc.constantFrom('Int', 'String!', '[String]', 'Boolean', 'JSON', 'Nope', 'ID!') },
    ),
  );
  const values = entries.map(([name, type]) =>
    fc.oneof(
      { weight: 4, arbitrary: valueFor(name, type) },
      { weight: 1, arbitrary: anyJsonValue },
      { weight: 1, arbitrary: fc.constant(undefined) },
    ),
  );
  return fc
    .tuple(
      fc.tuple(...declared),
      fc.tuple(...values),
      selectionFor(operation.returns, 1),
      fc.oneof(fc.constant('Fuzz'), fc.constant(undefined), anyJsonValue),
    )
    .map(([types, vals, selection, operationName]) => {
      const definitions = entries.map(([name], index) => `$${name}: ${types[index]}`);
      const uses = entries.map(([name]) => `${name}: $${name}`);
      const variables: Record<string, unknown> = {};
      entries.forEach(([name], index) => {
        if (vals[index] !== undefined) variables[name] = vals[index];
      });
      return {
        kind: operation.kind,
        query: `${operation.kind} Fuzz${definitions.length > 0 ? `(${definitions.join(', ')})` : ''} { ${operation.name}${uses.length > 0 ? `(${uses.join(', ')})` : ''}${selection} }`,
        variables,
        operationName,
        rootKeys: [operation.name],
      };
    });
});

/** Texts that are hardly GraphQL: syntax junk, truncations, deep nesting, huge documents, fragment cycles. */
const junkQuery: fc.Arbitrary<string> = fc.oneof(
  nastyString,
  fc.constantFrom(...injectionStrings),
  // Every proper prefix of a document misses its closing brace: a syntax error, never an executed mutation.
  literalOperation.chain((operation) => fc.nat({ max: operation.query.length - 1 }).map((cut) => operation.query.slice(0, cut))),
  fc.constantFrom(10, 100, 1000, 5000).map((depth) => `{ ${'me { '.repeat(depth)}id${' }'.repeat(depth)} }`),
  fc.constantFrom(10, 100, 1000).map((depth) => `{ thing(tuid: "GQ-1") { ${'location { '.repeat(depth)}lat${' }'.repeat(depth)} } }`),
  fc
    .constantFrom(300, 3000, 20_000)
    .map((count) => `{ ${Array.from({ length: count }, (_, index) => `f${index}: __typename`).join(' ')} }`),
  fc
    .constantFrom(25, 400)
    .map((count) => `{ ${Array.from({ length: count }, (_, index) => `t${index}: thing(tuid: "GQ-1") { tuid }`).join(' ')} }`),
  fc.constant('query A { ...F } fragment F on Query { ...G } fragment G on Query { ...F }'),
  fc.constant('{ groups { ...F } } fragment F on Group { groupId ...F }'),
  fc.constant('query A { me { id } } query A { me { id } }'),
  fc.constant('query A { me { id } } mutation FuzzNeverNamed { createGroup(groupId: "gq-never") { groupId } }'),
  fc.constant('subscription { messages }'),
  fc.constant('{ __schema { types { name fields { name } } } }'),
  fc.constant('{ __type(name: "Mutation") { fields { name } } }'),
  fc.constant(`{ thing(tuid: "${'\\u0041'.repeat(3000)}") { tuid } }`),
  fc.constant(`query Q(${Array.from({ length: 500 }, (_, index) => `$v${index}: Int`).join(', ')}) { me { id } }`),
  fc.constant('{ me { id } }'.repeat(2000)),
  fc.constant(`{ catalog ${'@skip(if: false) '.repeat(2000)} }`),
  fc.constant(`{ thing(tuid: ${'['.repeat(3000)}"x"${']'.repeat(3000)}) { tuid } }`),
  fc.constant(`mutation { sendCommands(tuid: "GQ-1", commands: [${'{a: '.repeat(2000)}1${'}'.repeat(2000)}]) { tuid } }`),
);

export type Audience = 'anonymous' | 'garbage-token' | 'rest-token' | 'Viewer' | 'Installer' | 'Manager';

/** One HTTP request to the GraphQL endpoint, described before tokens are filled in. */
export interface GraphqlFuzzRequest {
  audience: Audience;
  method: 'GET' | 'POST';
  contentType: string | undefined;
  accept: string | undefined;
  /** POST body as sent; for GET, the query string. */
  body: string;
  /** The operation when the request carries one generated operation as is; undefined for junk. */
  operation: GeneratedOperation | undefined;
}

const anyAudience = fc.constantFrom<Audience>(
  'anonymous',
  'garbage-token',
  'rest-token',
  'Viewer',
  'Installer',
  'Manager',
  'Manager',
  'Viewer',
);
const accept = fc.oneof(
  { weight: 8, arbitrary: fc.constantFrom('application/graphql-response+json', 'application/json', undefined, '*/*') },
  {
    weight: 1,
    arbitrary: fc.constantFrom(
      'application/xml',
      'text/html',
      'application/json;q=0, */*;q=0',
      'application/graphql-response+json; charset=latin1',
    ),
  },
);

const generated = fc.oneof({ weight: 3, arbitrary: literalOperation }, { weight: 2, arbitrary: variableOperation });

/** Generated operations POSTed as JSON by one of `audiences`: the common case. */
export function operationRequests(...audiences: Audience[]): fc.Arbitrary<GraphqlFuzzRequest> {
  return fc.record({ audience: fc.constantFrom(...audiences), accept, operation: generated }).map(({ audience, accept, operation }) => ({
    audience,
    method: 'POST' as const,
    contentType: 'application/json',
    accept,
    body: JSON.stringify({ query: operation.query, variables: operation.variables, operationName: operation.operationName }),
    operation,
  }));
}

/** Generated operations over GET (mutations must be refused with 405). */
export const getRequests: fc.Arbitrary<GraphqlFuzzRequest> = fc
  .record({ audience: anyAudience, accept, operation: generated })
  .map(({ audience, accept, operation }) => {
    const params = new URLSearchParams({ query: operation.query });
    if (operation.variables !== undefined) params.set('variables', JSON.stringify(operation.variables));
    if (typeof operation.operationName === 'string') params.set('operationName', operation.operationName);
    return { audience, method: 'GET' as const, contentType: undefined, accept, body: params.toString(), operation: undefined };
  });

/** Junk documents, parameters of the wrong types, batches. */
export const junkRequests: fc.Arbitrary<GraphqlFuzzRequest> = fc
  .record({
    audience: anyAudience,
    accept,
    query: fc.oneof({ weight: 4, arbitrary: junkQuery }, { weight: 1, arbitrary: anyJsonValue }),
    variables: fc.oneof(fc.constant(undefined), anyJsonValue),
    operationName: fc.oneof(fc.constant(undefined), anyJsonValue),
    extensions: fc.oneof(fc.constant(undefined), anyJsonValue),
    batched: fc.boolean(),
  })
  .map(({ audience, accept, query, variables, operationName, extensions, batched }) => {
    const params = { query, variables, operationName, extensions };
    return {
      audience,
      method: 'POST' as const,
      contentType: 'application/json',
      accept,
      body: JSON.stringify(batched ? [params, params] : params),
      operation: undefined,
    };
  });

/** Bodies that are not JSON, deep JSON, huge bodies, duplicate keys, wrong content types. */
export const bodyRequests: fc.Arbitrary<GraphqlFuzzRequest> = fc
  .record({
    audience: anyAudience,
    accept,
    contentType,
    sent: fc.oneof(
      fc
        .oneof(
          nonJsonText,
          deepJsonText,
          fc
            .constantFrom(1024 * 1024 + 10, 2 * 1024 * 1024)
            .map((size) => JSON.stringify({ query: '{ me { id } }', pad: 'x'.repeat(size) })),
          // Duplicate keys: the last one wins, so this is the harmless query and must not create the group.
          fc.constant('{"query":"mutation { createGroup(groupId: \\"gq-dup\\") { groupId } }","query":"{ me { id } }"}'),
          fc.constant('{"query":"{ me { id } }","__proto__":{"x":1}}'),
        )
        .map((body) => ({ body, operation: undefined })),
      // Deep JSON in a 13200 command's free fields, sent as variables text.
      deepJsonText.map((deep) => ({
        body: `{"query":"mutation Fuzz($c: [JSON!]!) { sendCommands(tuid: \\"GQ-1\\", commands: $c) { tuid } }","variables":{"c":[{"tsmId":13200,"tsmEv":30,"transactionId":5,"free":${deep}}]}}`,
        operation: { kind: 'mutation' as const, query: '', variables: undefined, operationName: undefined, rootKeys: ['sendCommands'] },
      })),
      // A real operation under a random content type: it may run (and write) only where the type is JSON.
      generated.map((operation) => ({
        body: JSON.stringify({ query: operation.query }),
        operation: { ...operation, variables: undefined },
      })),
    ),
  })
  .map(({ audience, accept, contentType, sent }) => ({
    audience,
    method: 'POST' as const,
    contentType,
    accept,
    body: sent.body,
    operation: sent.operation,
  }));
