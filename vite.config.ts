/**
 * Builds the web page (src/web) into static files (dist/web) that the service
 * serves at `/`. No inline scripts, so the page passes the service's strict CSP.
 */
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const web = (path: string) => fileURLToPath(new URL(`./src/web/${path}`, import.meta.url));

export default defineConfig({
  root: web(''),
  base: '/',
  publicDir: web('public'),
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('./dist/web', import.meta.url)),
    emptyOutDir: true,
    target: 'es2022',
    // The preload polyfill would be an inline script; every supported browser has modulepreload.
    modulePreload: { polyfill: false },
    // Nothing inlined as data: URIs, so the CSP needs no data: source.
    assetsInlineLimit: 0,
    sourcemap: true,
    rollupOptions: {
      input: {
        main: web('index.html'),
        platforms: web('platforms.html'),
        watchlists: web('watchlists.html'),
        batch: web('batch.html'),
      },
    },
  },
});
