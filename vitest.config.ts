import { availableParallelism } from 'node:os';
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
    // Measured on the two-core machine `npm test` must finish on in five minutes (issue #30):
    // - Forks (the default pool): the tests use native addons, signals and child processes freely.
    // - Each worker runs file after file in one module graph instead of a fresh one per file: most
    //   files import much of the server, and importing it again for each was the largest cost after
    //   the campaigns (import time 244 s against 21 s). The files clean up what they change
    //   (servers, environment variables, fake timers) and pass in any order; a file that could not
    //   would need a project of its own with `isolate: true`.
    // - 1.5 workers per core (3 here; Vitest's default is one less than the cores, 1 here, and its
    //   percentages stop at one per core): much of the suite waits on sockets, child processes and
    //   the demo model's pacing rather than the CPU. Measured: 1 worker 293 s, 2 workers 190 s,
    //   3 workers 157 s, 4 workers 168 s.
    // The long campaigns run at a quick size here and at full size in vitest.campaigns.config.ts.
    pool: 'forks',
    isolate: false,
    maxWorkers: Math.max(1, Math.round(availableParallelism() * 1.5)),
  },
});
