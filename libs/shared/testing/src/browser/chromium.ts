import { existsSync } from 'node:fs';
import type { Browser } from 'playwright-core';

/** Where Debian's `chromium` package puts the browser; `CHROMIUM_PATH` names another. */
export const DEFAULT_CHROMIUM_PATH = '/usr/bin/chromium';

/**
 * Flags for a headless Chromium on a machine without a network beyond loopback: no sandbox (tests run
 * as root in CI), no GPU, and none of the background fetches (updates, sync, safe browsing) that a
 * closed network refuses by the dozen.
 */
export const CHROMIUM_ARGS: readonly string[] = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--disable-default-apps',
  '--disable-dev-shm-usage',
];

/**
 * Launches the system's Chromium (Debian's `chromium`, installed by `.ci/run`) through Playwright, for
 * the tests of pages and browser clients. Fails with a clear message when the browser is missing: a
 * browser test never skips.
 */
export async function launchChromium(): Promise<Browser> {
  const executablePath = process.env['CHROMIUM_PATH'] ?? DEFAULT_CHROMIUM_PATH;
  if (!existsSync(executablePath)) {
    throw new Error(`Chromium is not installed at ${executablePath}: install Debian's chromium package (apt-get install chromium) or set CHROMIUM_PATH`);
  }
  const { chromium } = await import('playwright-core');
  return chromium.launch({ executablePath, args: [...CHROMIUM_ARGS], timeout: 30_000 });
}
