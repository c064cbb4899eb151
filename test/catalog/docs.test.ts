/** docs/catalog.md is generated; this fails when the committed file no longer matches the definitions. */
import { test } from 'node:test';
import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { renderCatalogMarkdown } from '../../src/catalog/index.js';
import { messageDefinitions, eventDefinitions, catalogDecisions } from '../../src/catalog/index.js';

const docsPath = new URL('../../docs/catalog.md', import.meta.url);

test('docs/catalog.md is up to date', () => {
  const committed = readFileSync(docsPath, 'utf8');
  assert.ok(committed === renderCatalogMarkdown(), 'docs/catalog.md is stale: run npm run catalog:docs');
});

test('the docs name every id, field, value, event and decision', () => {
  const markdown = renderCatalogMarkdown();
  for (const definition of messageDefinitions) {
    assert.ok(markdown.includes(`### ${definition.tsmId} ${definition.name}`), `${definition.tsmId}`);
  }
  for (const name of ['beaconChannels', 'binaries[]', 'binaryType', 'scratchpadSeqNumber', 'resistanceHysteresis', 'hallCount']) {
    assert.ok(markdown.includes(name), name);
  }
  assert.ok(markdown.includes('`255` beacon off'));
  assert.ok(markdown.includes('`"nRF52_sink"` nRF52 mesh sink firmware'));
  for (const event of eventDefinitions) assert.ok(markdown.includes(`| ${event.id} | ${event.use}`), `event ${event.id}`);
  for (const decision of catalogDecisions) assert.ok(markdown.includes(decision.topic), decision.topic);
});
