import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts'],
    // The browser tests load the real built page (dist/web); build it once, before any file runs.
    globalSetup: ['src/web/test-support/global-setup.ts'],
    // Property tests, real-socket tests and real Chromium do real work; keep the default generous.
    testTimeout: 20_000,
  },
});
