import { defineConfig } from 'vitest/config';

export default defineConfig({
  // `runstream/…` imports (examples, tests) resolve to the sources through tsconfig.json's paths.
  resolve: { tsconfigPaths: true },
  test: {
    include: ['src/**/*.test.ts', 'examples/**/*.test.ts'],
    // The browser tests load the real built page (dist/web), and the dialect tests drive the
    // ecosystem's clients from interop/ (Node 22): build and install both once, before any file runs.
    globalSetup: ['src/web/test-support/global-setup.ts', 'src/server/test-support/interop-setup.ts'],
    // Property tests, real-socket tests and real Chromium do real work; keep the default generous.
    testTimeout: 20_000,
  },
});
