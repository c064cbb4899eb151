/**
 * docs/catalog.md, rendered from the definitions (pure: no I/O). scripts/generate-catalog-docs.ts
 * writes it and test/catalog/docs.test.ts fails when the committed file is stale.
 */
import { rssiToDbm } from './conversions.js';
import { catalogDecisions } from './decisions.js';
import { messageDefinitions } from './definitions/index.js';
import { neighNodeInfoValues, nodeRoleFlags } from './definitions/shared-fields.js';
import { envelopeFields, envelopeRules } from './envelope.js';
import { eventDefinitions } from './events.js';
import { cell, describeRules, describeType, renderFieldTable } from './render-field-table.js';
import type { Direction, MessageDefinition, Profile } from './types.js';

const directionNames: Record<Direction, string> = {
  uplink: 'device to cloud',
  downlink: 'cloud to device',
  both: 'both (request and response)',
};

const profileTitles: Record<Profile, string> = {
  common: 'Common Profile (1000-1999)',
  environment: 'Environment Profile (12000-12999, and 13200)',
};

function list(numbers: readonly number[]): string {
  return numbers.length === 0 ? 'not shown' : numbers.join(', ');
}

function renderIntro(): string[] {
  return [
    '# Device message catalog',
    '',
    '<!-- Generated from src/catalog by `npm run catalog:docs`. Do not edit by hand. -->',
    '',
    'Every message id of seed 002 with its fields, value sets, ranges, defaults and events. The same definitions drive ' +
      'validation (strict for cloud-to-device messages, lenient for device reports), the TypeScript types, ' +
      '`GET /catalog` and this page.',
    '',
    '## Decisions',
    '',
    ...catalogDecisions.map((entry) => `- **${entry.topic}.** ${entry.decision}`),
    '',
  ];
}

function renderIndex(): string[] {
  return [
    '## Message ids',
    '',
    '| Id | Name | Profile | Direction | Events | Command endpoint |',
    '|---|---|---|---|---|---|',
    ...messageDefinitions.map(
      (definition) =>
        `| [${definition.tsmId}](#${definition.tsmId}) | ${definition.name} | ${definition.profile} | ` +
        `${directionNames[definition.direction]} | ${list(definition.events)} | ${definition.commandEndpoint ? 'yes' : 'no'} |`,
    ),
    '',
  ];
}

function renderEnvelope(): string[] {
  return [
    '## Envelope',
    '',
    '| Field | Type | Rules | Description |',
    '|---|---|---|---|',
    ...envelopeFields.map(
      (field) => `| \`${field.name}\` | ${describeType(field)} | ${cell(describeRules(field))} | ${cell(field.description)} |`,
    ),
    '',
    ...envelopeRules.map((rule) => `- ${rule}`),
    '',
  ];
}

function renderEvents(): string[] {
  return [
    '## Events',
    '',
    '| tsmEv | Use | Message ids |',
    '|---|---|---|',
    ...eventDefinitions.map(
      (event) => `| ${event.id} | ${cell(event.use)} | ${event.tsmIds.length === 0 ? '-' : event.tsmIds.join(', ')} |`,
    ),
    '',
  ];
}

function renderConversions(): string[] {
  const examples = [255, 127.5, 0].map((rssi) => `${rssi} → ${rssiToDbm(rssi)}`).join('; ');
  return [
    '## Conversions',
    '',
    `- **RSSI to dBm** (\`rssiToDbm\`): dBm = 128 * rssi / 255 - 128. Worked examples (rssi → dBm): ${examples}.`,
    '- **1220 nodeRole bit flags** (`decodeNodeRole`; several may be set, e.g. 0x85 is subnode, sink, autorole):',
    '',
    '| Bit | Name | Meaning |',
    '|---|---|---|',
    ...nodeRoleFlags.map((flag) => `| 0x${flag.bit.toString(16).padStart(2, '0')} | ${flag.name} | ${flag.meaning} |`),
    '',
    '- **neighNodeInfo of 1200 and 1202** (`describeNeighNodeInfo`):',
    '',
    '| Value | Meaning |',
    '|---|---|',
    ...neighNodeInfoValues.map((entry) => `| ${entry.value} | ${entry.meaning} |`),
    '',
  ];
}

function renderMessage(definition: MessageDefinition): string[] {
  const lines = [
    `### ${definition.tsmId} ${definition.name}`,
    '',
    `<a id="${definition.tsmId}"></a>Direction: ${directionNames[definition.direction]}. Events: ${list(definition.events)}. ` +
      `Command endpoint: ${definition.commandEndpoint ? 'yes' : 'no'}.` +
      (definition.openPayload === true ? ' Payload: open (any extra field accepted).' : ''),
    '',
    ...(definition.notes ?? []).map((note) => `- ${note}`),
  ];
  if (definition.notes !== undefined) lines.push('');
  if (definition.variants === undefined) return [...lines, ...renderFieldTable(definition.fields)];
  for (const variant of definition.variants) {
    lines.push(`#### ${definition.tsmId} ${variant.name} (${directionNames[variant.direction]}, events ${list(variant.events)})`, '');
    lines.push(...renderFieldTable(variant.fields));
  }
  return lines;
}

function renderProfile(profile: Profile): string[] {
  const definitions: readonly MessageDefinition[] = messageDefinitions.filter((definition) => definition.profile === profile);
  return [`## ${profileTitles[profile]}`, '', ...definitions.flatMap(renderMessage)];
}

/** The whole of docs/catalog.md, ending with one newline. */
export function renderCatalogMarkdown(): string {
  const lines = [
    ...renderIntro(),
    ...renderIndex(),
    ...renderEnvelope(),
    ...renderEvents(),
    ...renderConversions(),
    ...renderProfile('common'),
    ...renderProfile('environment'),
  ];
  return `${lines.join('\n').trimEnd()}\n`;
}
