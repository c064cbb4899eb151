/** Writes docs/catalog.md from the catalog definitions. Run: npm run catalog:docs */
import { writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { renderCatalogMarkdown } from '../src/catalog/render-markdown.js';

const target = fileURLToPath(new URL('../docs/catalog.md', import.meta.url));
writeFileSync(target, renderCatalogMarkdown());
console.log(`wrote ${target}`);
