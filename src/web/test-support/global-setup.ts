import { DEFAULT_WEB_ROOT, ensureWebBuild } from '../../cli/build-web.ts';

/**
 * Vitest global setup: the browser tests load the real built page, so build it once before any test
 * file runs (a no-op when dist/web is current with its sources). `RUNSTREAM_SKIP_WEB_BUILD=1` skips
 * it for a run of files that load no page, while the page's sources are mid-change.
 */
export default async function setup(): Promise<void> {
  if (process.env.RUNSTREAM_SKIP_WEB_BUILD === '1') return;
  await ensureWebBuild({ outDir: DEFAULT_WEB_ROOT });
}
