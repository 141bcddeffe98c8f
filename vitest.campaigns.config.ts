import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { defineConfig } from 'vitest/config';
import base from './vitest.config.ts';

/**
 * `npm run test:campaigns`: the long campaigns at the sizes their claims are made at (1,000
 * connection cuts, 50 × `kill -9`, 100,000 fuzzed decoder inputs, 10 runs per storage and model
 * fault, …). `npm test` runs the same files at a quick size; a file is a campaign when it sizes itself
 * with `campaignSize` (src/shared/test-support/campaign-size.ts), which reads RUNSTREAM_CAMPAIGN.
 */
const ROOT = fileURLToPath(new URL('.', import.meta.url));

function campaignFiles(): string[] {
  return ['src', 'examples'].flatMap((folder) =>
    readdirSync(join(ROOT, folder), { recursive: true, encoding: 'utf8' })
      .filter((path) => path.endsWith('.test.ts') && !path.split('/').includes('node_modules'))
      .map((path) => join(folder, path))
      .filter((path) => readFileSync(join(ROOT, path), 'utf8').includes('campaign-size.ts')),
  );
}

export default defineConfig({
  ...base,
  test: {
    ...base.test,
    include: campaignFiles(),
    env: { RUNSTREAM_CAMPAIGN: 'full' },
    // One file at a time: a campaign's timing (where its kills and cuts land) was measured with the
    // machine to itself.
    maxWorkers: 1,
    // Neither the built page nor the interop clients: no campaign drives a browser or those clients.
    globalSetup: [],
  },
});
