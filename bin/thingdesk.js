#!/usr/bin/env node
// The `thingdesk` command of package.json's `bin` (npx thingdesk, npm exec thingdesk, npm link, a global install).
// In a checkout with its dev dependencies it runs the sources through tsx, so it never runs a stale build after an
// edit or a pull; where there are no sources or no tsx (a production install, the container image) it runs the
// build that `npm run build` (and `npm start`) leave in dist/.
import { existsSync } from 'node:fs';

const source = new URL('../src/cli/main.ts', import.meta.url);
const built = new URL('../dist/cli/main.js', import.meta.url);

async function tsxApi() {
  try {
    return await import('tsx/esm/api');
  } catch {
    return undefined;
  }
}

const tsx = existsSync(source) ? await tsxApi() : undefined;
if (tsx) {
  tsx.register();
  await import(source.href);
} else if (existsSync(built)) {
  await import(built.href);
} else {
  process.stderr.write('thingdesk: not built yet: run `npm run build` (or `npm start`) in the project directory first\n');
  process.exitCode = 1;
}
