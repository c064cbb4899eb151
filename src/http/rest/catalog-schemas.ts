import { Type } from '@sinclair/typebox';

/**
 * The catalog's data (src/catalog/types.ts) as schemas, for the OpenAPI document of `GET /catalog` and
 * `GET /catalog/{tsmId}`. A field and an array's item share one schema (an item has no name of its own).
 */
const literals = <T extends string>(values: readonly T[]) => Type.Union(values.map((value) => Type.Literal(value)));

export const CatalogField = Type.Object(
  {
    name: Type.Optional(Type.String({ description: 'Field name; absent for an array item' })),
    required: Type.Optional(Type.Boolean()),
    type: literals(['Number', 'String', 'Buffer', 'Array', 'Object']),
    values: Type.Optional(
      Type.Array(Type.Object({ value: Type.Union([Type.Number(), Type.String()]), meaning: Type.String() }), {
        description: 'The value set',
      }),
    ),
    min: Type.Optional(Type.Number({ description: 'Inclusive lower bound' })),
    max: Type.Optional(Type.Number({ description: 'Inclusive upper bound' })),
    integer: Type.Optional(Type.Boolean({ description: 'Must be a whole number' })),
    nullable: Type.Optional(Type.Boolean({ description: '`null` is accepted as well as the type' })),
    format: Type.Optional(literals(['url', 'sha256'])),
    minLength: Type.Optional(Type.Integer()),
    items: Type.Optional(Type.Ref('CatalogField', { description: 'For an Array: the rules of each element' })),
    minItems: Type.Optional(Type.Integer()),
    fields: Type.Optional(Type.Array(Type.Ref('CatalogField'), { description: 'For an Object: its fields' })),
    unit: Type.Optional(Type.String()),
    description: Type.Optional(Type.String()),
    default: Type.Optional(Type.Union([Type.Number(), Type.String()], { description: 'Device default when the field is not sent' })),
    flags: Type.Optional(
      Type.Array(Type.Object({ bit: Type.Integer(), name: Type.String(), meaning: Type.String() }), {
        description: 'Bit meanings of a set of flags',
      }),
    ),
    example: Type.Optional(Type.Union([Type.Number(), Type.String(), Type.Array(Type.Unknown())])),
  },
  { $id: 'CatalogField', description: 'A field of a message, or the rules of an array item' },
);

export const CatalogMessage = Type.Object(
  {
    tsmId: Type.Integer({ description: 'Message id' }),
    name: Type.String(),
    profile: literals(['common', 'environment']),
    direction: literals(['uplink', 'downlink', 'both']),
    events: Type.Array(Type.Integer(), { description: 'tsmEv values seen with this id' }),
    commandEndpoint: Type.Boolean({ description: 'Accepted by POST /things/{tuid}/commands' }),
    fields: Type.Array(Type.Ref('CatalogField'), { description: 'Empty when the id has variants' }),
    variants: Type.Optional(
      Type.Array(
        Type.Object({
          name: literals(['request', 'response']),
          direction: literals(['uplink', 'downlink']),
          events: Type.Array(Type.Integer()),
          fields: Type.Array(Type.Ref('CatalogField')),
        }),
      ),
    ),
    openPayload: Type.Optional(Type.Boolean({ description: 'Any extra field is accepted (13200)' })),
    notes: Type.Optional(Type.Array(Type.String())),
  },
  { $id: 'CatalogMessage', description: 'One message id of the catalog (seed 002)' },
);

export const CatalogEvent = Type.Object(
  { id: Type.Integer(), use: Type.String(), tsmIds: Type.Array(Type.Integer(), { description: 'Message ids that carry this event' }) },
  { $id: 'CatalogEvent', description: 'One row of the tsmEv table' },
);
