import { defineConfig } from 'vitest/config';

// The engine fuzz runs in Node against a live server; `npm test` never picks it up.
export default defineConfig({
  test: {
    environment: 'node',
    include: ['src/**/*.fuzz.ts'],
    testTimeout: 20 * 60 * 1000,
    hookTimeout: 60 * 1000,
  },
});
