// The web page's build (docs/web.md): web/ → dist/web, served by `baton serve` at `/`.
// Relative asset URLs; no source maps shipped; nothing fetched from the network at run time.
import react from '@vitejs/plugin-react';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

const here = fileURLToPath(new URL('.', import.meta.url));

export default defineConfig({
  root: here,
  base: './',
  plugins: [react()],
  logLevel: 'warn',
  resolve: {
    // The client's stdio transport imports node:child_process lazily; the page only uses the WebSocket half.
    alias: { 'node:child_process': fileURLToPath(new URL('./src/no-node.ts', import.meta.url)) },
  },
  build: {
    outDir: fileURLToPath(new URL('../dist/web', import.meta.url)),
    emptyOutDir: true,
    sourcemap: false,
    assetsInlineLimit: 0,
    chunkSizeWarningLimit: 800,
  },
});
