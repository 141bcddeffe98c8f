import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';

export const CHROMIUM_PATH = process.env.RUNSTREAM_CHROMIUM ?? '/usr/bin/chromium';

/** Screenshots land here (git-ignored): look at them before calling a UI change done. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

/**
 * Debian's Chromium, headless, with the flags this machine needs: no sandbox (tests run as root),
 * and no background networking, which a closed network would refuse over and over.
 */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM_PATH))
    throw new Error(
      `Chromium is not at ${CHROMIUM_PATH}: install it with "apt-get update && apt-get install -y chromium" ` +
        '(or set RUNSTREAM_CHROMIUM); the UI tests never download a browser',
    );
  return chromium.launch({
    executablePath: CHROMIUM_PATH,
    headless: true,
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-quic',
      '--no-first-run',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
    ],
  });
}

export async function saveScreenshot(page: Page, name: string): Promise<string> {
  mkdirSync(ARTIFACTS_DIR, { recursive: true });
  const path = join(ARTIFACTS_DIR, `${name}.png`);
  await page.screenshot({ path, fullPage: false });
  return path;
}

/** The rendered block list: what a person sees, for comparing a page before and after a refresh. */
export interface RenderedBlock {
  kind: string;
  status: string;
  text: string;
}

export async function renderedBlocks(page: Page): Promise<RenderedBlock[]> {
  return page.$$eval('[data-testid="block"]', (elements) =>
    elements.map((element) => ({
      kind: element.getAttribute('data-kind') ?? '',
      status: element.getAttribute('data-status') ?? '',
      text: (element.textContent ?? '').replace(/\s+/g, ' ').trim(),
    })),
  );
}
