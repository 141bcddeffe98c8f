import { existsSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import { launchChromium } from './browser.ts';
import { DEBIAN_CHROMIUM_PATH, resolveChromium } from './chromium-executable.ts';

// The UI tests must pass on a machine with no system packages added, so the bundled build is
// exercised here even where Debian's Chromium is installed.
describe('the Chromium the UI tests drive', () => {
  const saved = process.env.RUNSTREAM_CHROMIUM;
  afterEach(() => {
    if (saved === undefined) delete process.env.RUNSTREAM_CHROMIUM;
    else process.env.RUNSTREAM_CHROMIUM = saved;
  });

  it('prefers RUNSTREAM_CHROMIUM, then Debian, then the bundled build', () => {
    process.env.RUNSTREAM_CHROMIUM = process.execPath;
    expect(resolveChromium()).toMatchObject({ source: 'RUNSTREAM_CHROMIUM', path: process.execPath });
    delete process.env.RUNSTREAM_CHROMIUM;
    expect(resolveChromium().source).toBe(existsSync(DEBIAN_CHROMIUM_PATH) ? 'debian' : 'bundled');
  });

  it('says so when RUNSTREAM_CHROMIUM names a missing file instead of quietly using another browser', () => {
    process.env.RUNSTREAM_CHROMIUM = '/nonexistent/chromium';
    expect(() => resolveChromium()).toThrow(/RUNSTREAM_CHROMIUM names \/nonexistent\/chromium/);
  });

  it('launches the bundled build headless and renders Chinese text', { timeout: 60_000 }, async () => {
    const executable = resolveChromium('bundled');
    expect(existsSync(executable.path)).toBe(true);
    const browser = await launchChromium('bundled');
    try {
      const page = await browser.newPage();
      await page.setContent('<main lang="zh-CN"><h1>订单已取消</h1><p id="width">退款将原路返回</p></main>');
      expect(await page.textContent('h1')).toBe('订单已取消');
      // Laid out, not just parsed: the paragraph has a real width.
      const width = await page.$eval('#width', (element) => element.getBoundingClientRect().width);
      expect(width).toBeGreaterThan(0);
    } finally {
      await browser.close();
    }
  });
});
