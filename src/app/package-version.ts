import { readFileSync } from 'node:fs';

/** The version in package.json (shown in the OpenAPI document); read once, from the source or the built tree. */
export const packageVersion: string = (() => {
  for (const path of ['../../package.json', '../../../package.json']) {
    try {
      const { version } = JSON.parse(readFileSync(new URL(path, import.meta.url), 'utf8')) as { version?: unknown };
      // A package.json without a version (a bare `{ "type": "module" }` next to a copied build) is not ours.
      if (typeof version === 'string' && version !== '') return version;
    } catch {
      // Not at this depth: src/app and dist/app sit at different depths below the package root.
    }
  }
  return '0.0.0';
})();
