/**
 * TypeScript types derived from the definitions, so our own code cannot misspell a field or send
 * a value outside a set: the definitions change, the types follow.
 */
import type { messageDefinitions } from './definitions/index.js';
import type { FieldDefinition } from './types.js';

type Definition = (typeof messageDefinitions)[number];

/** Every message id the catalog defines. */
export type CatalogTsmId = Definition['tsmId'];

/** Ids accepted by the command endpoint. */
export type CommandTsmId = Extract<Definition, { readonly commandEndpoint: true }>['tsmId'];

export type DefinitionOf<Id extends CatalogTsmId> = Extract<Definition, { readonly tsmId: Id }>;

type Simplify<T> = { [Key in keyof T]: T[Key] } & {};

/** The TypeScript type of one value: a value set becomes a union of its literals. */
type BaseValueOf<Rules> = Rules extends { readonly values: readonly { readonly value: infer Value }[] }
  ? Value
  : Rules extends { readonly type: 'Number' }
    ? number
    : Rules extends { readonly type: 'String' | 'Buffer' }
      ? string
      : Rules extends { readonly type: 'Array'; readonly items: infer Item }
        ? ValueOf<Item>[]
        : Rules extends { readonly type: 'Object'; readonly fields: infer Fields extends readonly FieldDefinition[] }
          ? PayloadOf<Fields>
          : unknown;

type ValueOf<Rules> = BaseValueOf<Rules> | (Rules extends { readonly nullable: true } ? null : never);

/** An object type from a field list: required fields required, the others optional. */
export type PayloadOf<Fields extends readonly FieldDefinition[]> = Simplify<
  { [Field in Fields[number] as Field extends { readonly required: true } ? Field['name'] : never]: ValueOf<Field> } & {
    [Field in Fields[number] as Field extends { readonly required: true } ? never : Field['name']]?: ValueOf<Field>;
  }
>;

type VariantPayloads<Variants> = Variants extends readonly (infer Variant)[]
  ? Variant extends { readonly fields: infer Fields extends readonly FieldDefinition[] }
    ? PayloadOf<Fields>
    : never
  : never;

type PayloadOfDefinition<D> = D extends { readonly openPayload: true }
  ? Record<string, unknown>
  : D extends { readonly variants: infer Variants }
    ? VariantPayloads<Variants>
    : D extends { readonly fields: infer Fields extends readonly FieldDefinition[] }
      ? PayloadOf<Fields>
      : never;

/** The payload (fields without the envelope) of a message id; a union of forms for ids with variants. */
export type CatalogPayload<Id extends CatalogTsmId> = PayloadOfDefinition<DefinitionOf<Id>>;

/** Envelope fields other than tsmId, all optional at the type level (validation enforces context rules). */
export interface MessageEnvelope {
  tsmEv?: number;
  tsmTs?: number;
  tsmTuid?: string;
  tsmGw?: string;
  tsmDstTuid?: string;
  transactionId?: number;
}

/** A whole message of one id: envelope plus payload. */
export type CatalogMessage<Id extends CatalogTsmId> = { tsmId: Id } & MessageEnvelope & CatalogPayload<Id>;

/** Any catalog message, discriminated by `tsmId`. */
export type AnyCatalogMessage = { [Id in CatalogTsmId]: CatalogMessage<Id> }[CatalogTsmId];

/** A command the command endpoint accepts: tsmEv and transactionId are required there. */
export type CommandMessage = {
  [Id in CommandTsmId]: CatalogMessage<Id> & { tsmEv: number; transactionId: number };
}[CommandTsmId];
