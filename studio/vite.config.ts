import { mkdirSync, readdirSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig, type Plugin } from 'vite';

/**
 * The studio's build: `npm run build` writes dist/studio, which the platform serves at `/` (src/http/studio).
 * Everything the page loads is in that folder (no CDN). `npm run studio:dev` serves it with hot reload and
 * forwards the APIs to a platform on STUDIO_API (default http://localhost:8080).
 */
const api = process.env.STUDIO_API ?? 'http://localhost:8080';
const projectRoot = fileURLToPath(new URL('..', import.meta.url));

/**
 * Lists the project's files this build read (its modules outside node_modules, src/ ones included, and public/),
 * in dist/.studio-inputs.json: `npm start` (scripts/build-changed.mjs) rebuilds the studio only when one changed.
 */
function recordInputs(): Plugin {
  return {
    name: 'thingdesk-record-inputs',
    apply: 'build',
    buildEnd() {
      const modules = [...this.getModuleIds()]
        .filter((id) => !id.startsWith('\0') && !id.includes('/node_modules/'))
        .map((id) => relative(projectRoot, id.split('?')[0]!));
      const publicDir = join(projectRoot, 'studio', 'public');
      const publicFiles = readdirSync(publicDir, { recursive: true, withFileTypes: true })
        .filter((entry) => entry.isFile())
        .map((entry) => relative(projectRoot, join(entry.parentPath, entry.name)));
      const inputs = [...new Set([...modules, ...publicFiles])].filter((file) => !file.startsWith('..')).sort();
      mkdirSync(join(projectRoot, 'dist'), { recursive: true });
      writeFileSync(join(projectRoot, 'dist', '.studio-inputs.json'), `${JSON.stringify(inputs, null, 1)}\n`);
    },
  };
}

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/studio/',
  plugins: [svelte(), recordInputs()],
  build: {
    outDir: fileURLToPath(new URL('../dist/studio', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // Pages are loaded when first opened; the warning limit is the budget for the initial JavaScript.
    chunkSizeWarningLimit: 250,
  },
  server: {
    proxy: {
      '/api': api,
      '/v1/graphql': { target: api, ws: true },
    },
  },
});
