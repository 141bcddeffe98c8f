import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // Property tests and real-socket tests do real work; keep the default generous.
    testTimeout: 20_000,
  },
});
