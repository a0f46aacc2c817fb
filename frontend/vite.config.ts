import { defineConfig } from 'vitest/config';
import react from '@vitejs/plugin-react';
import { precompress } from './build/precompress.ts';

// Built assets are served by Django (django-vite + whitenoise) under /static/.
export default defineConfig({
  base: '/static/',
  plugins: [react(), precompress()],
  server: {
    port: 5173,
    strictPort: true,
    origin: 'http://localhost:5173',
  },
  build: {
    outDir: 'dist',
    emptyOutDir: true,
    manifest: 'manifest.json',
    rollupOptions: {
      input: 'src/main.tsx',
      output: {
        // React and React Flow change rarely: their own chunk keeps the app chunk small and cacheable.
        // (django-vite preloads the entry's imports from the manifest.)
        advancedChunks: {
          groups: [{ name: 'vendor', test: /node_modules[\\/](react|react-dom|scheduler|@xyflow|d3-[a-z-]+|zustand|classcat|use-sync-external-store)[\\/]/ }],
        },
      },
    },
  },
  test: {
    environment: 'jsdom',
    setupFiles: ['src/test/setup.ts'],
    include: ['src/**/*.test.{ts,tsx}'],
    css: false,
  },
});
