import { readFileSync } from 'node:fs';

/** The version in package.json (shown in the OpenAPI document); read once, from the source or the built tree. */
export const packageVersion: string = (() => {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      return (JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version: string }).version;
    } catch {
      // Not at this depth: src/app and dist/app sit at different depths below the package root.
    }
  }
  return '0.0.0';
})();
