/**
 * A schema that types its data (issue 19): closed sets are enums keeping today's spelling on the wire, the
 * arguments SPEC section 4 fixes keep their types, every time field says how it is expressed, and every type,
 * field, argument and enum value has a description.
 */
import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { makeExecutableSchema } from '@graphql-tools/schema';
import {
  getNamedType,
  isEnumType,
  isInputObjectType,
  isIntrospectionType,
  isObjectType,
  isSpecifiedScalarType,
  type GraphQLSchema,
} from 'graphql';
import { createClient as createWsClient } from 'graphql-ws';
import WebSocket from 'ws';
import { alertTypes } from '../../../src/domain/alerts/alert-types.js';
import { installationStatuses } from '../../../src/domain/things/thing-types.js';
import { typeDefs } from '../../../src/http/graphql/type-defs.js';
import { alertTypeEnum } from '../../../src/http/graphql/resolvers/alert-resolvers.js';
import { cleanupStores } from '../../helpers/databases.js';
import { dataOf, signInAs, type SignedInUser } from '../../helpers/graphql-users.js';
import { startTestApp, type TestApp } from '../../helpers/test-app.js';

after(cleanupStores);

const fullSchema = makeExecutableSchema({ typeDefs });

/** Every type, field, input field, argument and enum value of our own (not GraphQL's built-ins) without a description. */
function undescribed(schema: GraphQLSchema): string[] {
  const missing: string[] = [];
  const lacks = (description: string | null | undefined) => !description || description.trim() === '';
  for (const type of Object.values(schema.getTypeMap())) {
    if (isIntrospectionType(type) || isSpecifiedScalarType(type)) continue;
    if (lacks(type.description)) missing.push(type.name);
    if (isObjectType(type) || isInputObjectType(type)) {
      for (const field of Object.values(type.getFields())) {
        if (lacks(field.description)) missing.push(`${type.name}.${field.name}`);
        for (const argument of 'args' in field ? field.args : []) {
          if (lacks(argument.description)) missing.push(`${type.name}.${field.name}(${argument.name})`);
        }
      }
    }
    if (isEnumType(type)) for (const value of type.getValues()) if (lacks(value.description)) missing.push(`${type.name}.${value.name}`);
  }
  return missing;
}

describe('the GraphQL schema types and describes its data', () => {
  test('every type, field, argument and enum value has a description', () => {
    assert.deepEqual(undescribed(fullSchema), []);
  });

  test('a field, argument or enum value added without one is reported', () => {
    const grown = makeExecutableSchema({ typeDefs: [typeDefs, 'extend type Thing { secret(x: Int): Int } extend enum Role { OWNER }'] });
    assert.deepEqual(undescribed(grown), ['Role.OWNER', 'Thing.secret', 'Thing.secret(x)']);
  });

  test('every time field says how it is expressed: Unix seconds, or a local date-time in ALERT_TIMEZONE', () => {
    const timeFields = [
      'Thing.timestamp',
      'Group.createdAt',
      'AlertPeriod.from',
      'AlertPeriod.to',
      'AlertEvent.from',
      'AlertEvent.to',
      'InstallationResult.timestamp',
      'InstallationHistoryEntry.timestamp',
      'SendCommandsResult.timestamp',
      'CommandRecord.timestamp',
      'ApiClient.createdAt',
      'MqttCredential.createdAt',
    ];
    for (const name of timeFields) {
      const [typeName, fieldName] = name.split('.') as [string, string];
      const type = fullSchema.getType(typeName);
      assert.ok(isObjectType(type), typeName);
      const description = type.getFields()[fieldName]!.description ?? '';
      assert.match(description, /Unix seconds|local date-time .*ALERT_TIMEZONE/, name);
    }
    for (const [field, argument] of [
      ['messages', 'from'],
      ['messages', 'to'],
      ['alerts', 'from'],
      ['alerts', 'to'],
    ] as const) {
      const queryFields = fullSchema.getQueryType()!.getFields();
      const description = queryFields[field]!.args.find((a) => a.name === argument)!.description ?? '';
      assert.match(description, /Unix seconds/, `${field}(${argument})`);
    }
  });

  test('closed sets are enums whose values are the words REST and the live streams use', () => {
    const enumOf = (typeName: string, fieldName: string) => {
      const type = fullSchema.getType(typeName);
      assert.ok(isObjectType(type), typeName);
      const named = getNamedType(type.getFields()[fieldName]!.type);
      assert.ok(isEnumType(named), `${typeName}.${fieldName} is ${named.name}`);
      return named.getValues().map((value) => value.value as string);
    };
    for (const [type, field] of [
      ['Thing', 'installationStatus'],
      ['InstallationResult', 'installationStatus'],
      ['InstallationHistoryEntry', 'installationStatus'],
    ]) {
      assert.deepEqual(enumOf(type!, field!), [...installationStatuses], `${type}.${field}`);
    }
    assert.deepEqual(enumOf('AlertEvent', 'state'), ['opened', 'closed']);
    assert.deepEqual(enumOf('CommandRecord', 'status'), ['sent', 'applied', 'unavailable']);
    assert.deepEqual(enumOf('MqttCredential', 'kind'), ['GATEWAY', 'INTEGRATION']);
    // Alert types have spaces: the String field stays, the enum beside it maps every type.
    // SPEC section 13: RULE stands for every rule's name ('rule' inside; alertType carries the name).
    assert.deepEqual(Object.values(alertTypeEnum).sort(), [...alertTypes, 'rule'].sort());
    assert.deepEqual(enumOf('AlertRecord', 'type').sort(), Object.keys(alertTypeEnum).sort());
    for (const typeName of ['AlertRecord', 'AlertEvent']) {
      const type = fullSchema.getType(typeName);
      assert.ok(isObjectType(type), typeName);
      assert.equal(String(type.getFields().alertType!.type), 'String!', `${typeName}.alertType stays a String`);
    }
  });

  test('the arguments SPEC section 4 fixes keep their types', () => {
    const mutation = fullSchema.getMutationType()!.getFields();
    const query = fullSchema.getQueryType()!.getFields();
    const argumentType = (fields: typeof query, field: string, argument: string) =>
      String(fields[field]!.args.find((a) => a.name === argument)!.type);
    assert.equal(argumentType(mutation, 'login', 'loginInput'), 'LoginInput!');
    assert.equal(argumentType(mutation, 'refreshToken', 'refreshTokenInput'), 'RefreshTokenInput!');
    assert.equal(argumentType(mutation, 'setInstallationStatus', 'status'), 'String!');
    assert.equal(argumentType(mutation, 'assignThingToGroup', 'groupId'), 'String!');
    assert.equal(argumentType(mutation, 'createUser', 'role'), 'Role!');
    assert.equal(argumentType(mutation, 'createMqttCredential', 'kind'), 'MqttCredentialKind!');
    assert.equal(argumentType(query, 'thing', 'tuid'), 'ID!');
    assert.equal(argumentType(query, 'messages', 'limit'), 'Int!');
    assert.equal(argumentType(query, 'groups', 'q'), 'String');
    assert.equal(argumentType(query, 'things', 'installationStatus'), 'String', 'a client sending a String variable keeps working');
  });

  describe('on the wire', () => {
    let server: TestApp;
    let installer: SignedInUser;
    before(async () => {
      server = await startTestApp();
      installer = await signInAs(server, 'Installer');
    });
    after(() => server?.stop());

    test('installation statuses read as before, set with a String variable as before', async () => {
      const set =
        'mutation S($tuid: ID!, $status: String!) { setInstallationStatus(tuid: $tuid, status: $status) { tuid installationStatus } }';
      assert.deepEqual(dataOf(await installer.client.request(set, { tuid: 'ENUM-1', status: 'installed' })).setInstallationStatus, {
        tuid: 'ENUM-1',
        installationStatus: 'installed',
      });
      const read = dataOf(
        await installer.client.request(
          '{ thing(tuid: "ENUM-1") { installationStatus } installations(tuid: "ENUM-1") { installationStatus } }',
        ),
      );
      assert.equal(read.thing.installationStatus, 'installed');
      assert.deepEqual(
        read.installations.map((entry: { installationStatus: string }) => entry.installationStatus),
        ['installed', 'new'],
      );
      const filtered = dataOf(
        await installer.client.request('query F($s: String) { things(installationStatus: $s) { nodes { tuid } } }', { s: 'installed' }),
      );
      assert.deepEqual(filtered.things.nodes, [{ tuid: 'ENUM-1' }]);
    });

    test('an alert event streams state and alertType as before, with the enum type beside', async () => {
      const client = createWsClient({
        url: server.url(server.config.graphqlPath).replace(/^http/, 'ws'),
        webSocketImpl: WebSocket,
        connectionParams: { Authorization: `Bearer ${installer.client.accessToken}` },
        retryAttempts: 0,
      });
      try {
        const received = new Promise<unknown>((resolve, reject) => {
          client.subscribe(
            { query: 'subscription { alerts { tuid alertType type state from to } }' },
            { next: resolve, error: reject, complete: () => undefined },
          );
        });
        // Sent again every 200 ms until it arrives: nothing tells when the subscription has started, and on a busy
        // host an event sent once after a fixed wait can come before it, leaving this test waiting for ever.
        const openedAt = Date.UTC(2026, 0, 2, 3, 4, 5);
        const emit = () =>
          server.app.events.emit('alertChanged', {
            organizationId: 'acme',
            tuid: 'ENUM-1',
            alertType: 'battery low',
            state: 'opened',
            openedAt,
            closedAt: null,
          });
        const resend = setInterval(emit, 200);
        const first = await received.finally(() => clearInterval(resend));
        assert.deepEqual(first, {
          data: {
            alerts: {
              tuid: 'ENUM-1',
              alertType: 'battery low',
              type: 'BATTERY_LOW',
              state: 'opened',
              from: '2026-01-02T03:04:05',
              to: null,
            },
          },
        });
      } finally {
        await client.dispose();
      }
    });
  });
});
