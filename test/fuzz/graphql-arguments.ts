/** Argument values for generated GraphQL operations, as variables or as literals, mostly the ids the fuzz file seeds. */
import fc from 'fast-check';
import { installationStatuses } from '../../src/domain/things/thing-types.js';
import type { ArgType } from './graphql-schema-model.js';
import { anyJsonValue, nastyNumber, nastyString, numberTexts, poolOrNasty } from './nasty-values.js';

/** Things and groups the GraphQL fuzz file seeds. */
export const seededTuids = ['GQ-1', 'GQ-2'] as const;
export const seededGroup = 'gq-group';
const tuidPool = [...seededTuids, 'NOPE-404'];
const groupPool = [seededGroup, 'gq-other', 'unassigned', 'nope-group'];

/** A value of the right kind for an argument, as a JavaScript value (for variables). */
export function valueFor(name: string, type: ArgType): fc.Arbitrary<unknown> {
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
export function literalFor(name: string, type: ArgType): fc.Arbitrary<string> {
  const right =
    type.startsWith('Role') || type.startsWith('MqttCredentialKind')
      ? enumValue(type)
      : type.startsWith('Int')
        ? fc.oneof(fc.constantFrom(...numberTexts), valueFor(name, type).map(literalOf))
        : valueFor(name, type).map(literalOf);
  return fc.oneof({ weight: 5, arbitrary: right }, { weight: 1, arbitrary: wrongLiteral });
}
