import { defineConfig } from 'vite';
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';

// The console is served by the gateway from web/dist in embedded mode; in development Vite proxies /api.
// `npm run build -w web` (scripts/build.ts) builds elsewhere and publishes into dist without emptying it.
/** `@/x` is `web/src/x`: shared code by one name from anywhere; a feature's own files stay relative. */
export const srcAlias = [{ find: /^@\//, replacement: `${fileURLToPath(new URL('./src', import.meta.url))}/` }];

export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  plugins: [react()],
  resolve: { alias: srcAlias },
  server: {
    port: 5173,
    proxy: { '/api': { target: 'http://localhost:3000', changeOrigin: false } },
  },
  build: {
    outDir: fileURLToPath(new URL('./dist', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    chunkSizeWarningLimit: 800,
    // A page's lazy chunks come from the browser's cache one request at a time: 112 chunks, most under 2 KB,
    // kept the dashboard waiting half a second on two cores for files it had cached (docs/performance.md).
    // Chunks without side effects under 20 KB are merged into one loaded in the same conditions (50 chunks),
    // so a route's code may sit in a chunk named after another route (web/e2e/bundle-budget.e2e.ts).
    rollupOptions: { output: { experimentalMinChunkSize: 20_000 } },
  },
});
