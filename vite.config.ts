import { fileURLToPath } from 'node:url';
import react from '@vitejs/plugin-react';
import { defineConfig } from 'vite';

/**
 * The web chat UI (src/web) builds into dist/web, which `npm start` serves at `/`. Everything the page
 * needs is bundled: no CDN, no external fonts. `npm run build:web` builds it; `npm start` builds it
 * when it is missing or older than its sources.
 */
export default defineConfig({
  root: fileURLToPath(new URL('./src/web', import.meta.url)),
  base: '/',
  plugins: [react()],
  build: {
    outDir: fileURLToPath(new URL('./dist/web', import.meta.url)),
    emptyOutDir: true,
    // Hashed file names under /assets are served as immutable; index.html is always revalidated.
    assetsDir: 'assets',
    sourcemap: true,
    target: 'es2022',
  },
  server: {
    // `npm run dev:web` proxies the API to a running `npm start`.
    proxy: { '/v1': 'http://127.0.0.1:8787', '/auth': 'http://127.0.0.1:8787' },
  },
});
