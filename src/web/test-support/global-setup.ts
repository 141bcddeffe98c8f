import { DEFAULT_WEB_ROOT, ensureWebBuild } from '../../cli/build-web.ts';

/**
 * Vitest global setup: the browser tests load the real built page, so build it once before any test
 * file runs (a no-op when dist/web is current with its sources).
 */
export default async function setup(): Promise<void> {
  await ensureWebBuild({ outDir: DEFAULT_WEB_ROOT });
}
