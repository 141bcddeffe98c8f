import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { type Browser, chromium, type Page } from 'playwright-core';
import { type ChromiumSource, resolveChromium } from './chromium-executable.ts';

/** Screenshots land here (git-ignored): look at them before calling a UI change done. */
export const ARTIFACTS_DIR = fileURLToPath(new URL('../../../test-artifacts/', import.meta.url));

/**
 * Headless Chromium (Debian's, or the one bundled in an npm package: see `resolveChromium`), with
 * the flags this machine needs: no sandbox (tests run as root), and no background networking,
 * which a closed network would refuse over and over.
 */
export async function launchChromium(source?: ChromiumSource): Promise<Browser> {
  const executable = resolveChromium(source);
  return chromium.launch({
    executablePath: executable.path,
    headless: true,
    env: { ...process.env, ...executable.env },
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
