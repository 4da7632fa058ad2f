import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vite';

// The dashboard is served by the gateway under /ui/ from dist/ui (src/http/serve-ui.ts).
export default defineConfig({
  root: fileURLToPath(new URL('.', import.meta.url)),
  base: '/ui/',
  logLevel: 'warn',
  build: {
    outDir: fileURLToPath(new URL('../dist/ui', import.meta.url)),
    emptyOutDir: true,
    // Names under assets/ carry a content hash, so the gateway can let browsers keep them for good.
    assetsDir: 'assets',
    target: 'es2022',
  },
});
