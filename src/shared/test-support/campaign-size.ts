/**
 * The long test campaigns (connection cuts, `kill -9`, storage and concurrency faults, decoder and
 * codec fuzzing, two instances) run at two sizes. `npm test` runs each at a quick size that still
 * takes every path of the campaign (a few cuts, three kills, a thousand fuzzed inputs) so a newcomer
 * waits minutes, not a quarter of an hour; `npm run test:campaigns` (vitest.campaigns.config.ts)
 * sets `RUNSTREAM_CAMPAIGN=full` and runs the same files at the sizes their claims are made at
 * (1,000 cuts, 50 kills, 100,000 inputs). A single file can be run at full size the same way:
 * `RUNSTREAM_CAMPAIGN=full npx vitest run src/faults/crash-restart.test.ts`.
 */
export const FULL_CAMPAIGN = process.env.RUNSTREAM_CAMPAIGN === 'full';

/** The full size under `RUNSTREAM_CAMPAIGN=full`, the quick one otherwise. */
export function campaignSize<T>(sizes: { quick: T; full: T }): T {
  return FULL_CAMPAIGN ? sizes.full : sizes.quick;
}
