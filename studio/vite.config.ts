import { fileURLToPath } from 'node:url';
import { svelte } from '@sveltejs/vite-plugin-svelte';
import { defineConfig } from 'vite';

/**
 * The studio's build: `npm run build` writes dist/studio, which the platform serves at `/` (src/http/studio).
 * Everything the page loads is in that folder (no CDN). `npm run studio:dev` serves it with hot reload and
 * forwards the APIs to a platform on STUDIO_API (default http://localhost:8080).
 */
const api = process.env.STUDIO_API ?? 'http://localhost:8080';

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/studio/',
  plugins: [svelte()],
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
