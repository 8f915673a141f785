import { chromium, type Browser } from 'playwright-core';
import { env } from '../../server/env';

/**
 * Debian's Chromium, headless, as the end-to-end suite and the first-screen bench drive it (no
 * browser download: CHROMIUM_PATH, else /usr/bin/chromium).
 */
export function headlessChromium(): Promise<Browser> {
  return chromium.launch({
    executablePath: env().CHROMIUM_PATH ?? '/usr/bin/chromium',
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-dev-shm-usage'],
  });
}
