/**
 * Debian's Chromium driven by playwright-core (never `playwright install`), with the switches
 * that matter on this machine: no sandbox (root), no GPU, no QUIC, nothing in the background.
 * Playwright gives each launch a fresh, temporary user-data-dir.
 */
import { chromium, type Browser } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export function launchChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: [
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
