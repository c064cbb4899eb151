/**
 * The device message catalog (seed 002): definitions as plain data, the types derived from them,
 * validation, conversions, examples and the docs renderer. No I/O and no server imports, so a
 * client can import this module alone.
 */
export { messageDefinitions } from './definitions/index.js';
export { eventDefinitions, getEventDefinition, defaultDownlinkEvent } from './events.js';
export { envelopeFields, envelopeRules, commandRequiredEnvelopeFields } from './envelope.js';
export type { EnvelopeFieldName } from './envelope.js';
export { catalogDecisions } from './decisions.js';
export type { CatalogDecision } from './decisions.js';
export { getMessageDefinition, isCatalogTsmId, commandTsmIds, fieldsForDirection } from './lookup.js';
export { validateDownlink, validateCommand, validateUplink } from './validate.js';
export type { UplinkValidation } from './validate.js';
export { prefixProblems } from './problems.js';
export { rssiToDbm, decodeNodeRole, describeNeighNodeInfo, isConfigurationReadRequest } from './conversions.js';
export { exampleMessage, exampleEnvelope } from './examples.js';
export { renderCatalogMarkdown } from './render-markdown.js';
export type {
  AllowedValue,
  BitFlag,
  Direction,
  EventDefinition,
  FieldDefinition,
  FieldType,
  ItemDefinition,
  MessageDefinition,
  Problem,
  Profile,
  StringFormat,
  ValueRules,
  VariantDefinition,
} from './types.js';
export type {
  AnyCatalogMessage,
  CatalogMessage,
  CatalogPayload,
  CatalogTsmId,
  CommandMessage,
  CommandTsmId,
  DefinitionOf,
  MessageEnvelope,
  PayloadOf,
} from './message-types.js';
