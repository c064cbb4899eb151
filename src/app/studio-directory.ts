import { fileURLToPath } from 'node:url';

/**
 * The built studio, dist/studio below the package root: src/app (tsx) and dist/app (built) are both two levels
 * below it, so one relative path serves both.
 */
export const studioDirectory: string = fileURLToPath(new URL('../../dist/studio/', import.meta.url));
