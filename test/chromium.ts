// Debian's Chromium, headless, through playwright-core (never a browser download), with the
// launch flags the machine notes give and a fresh profile folder. Shared by the web page's
// test (test/web.test.ts) and its bench (bench/cases/web-first-paint.ts).
import * as fs from 'node:fs';
import { join } from 'node:path';
import type { BrowserContext } from 'playwright-core';

export const CHROMIUM = '/usr/bin/chromium';

export const chromiumMissing = (): string | false => (fs.existsSync(CHROMIUM) ? false : `${CHROMIUM} is missing: install Debian's chromium (apt-get install -y chromium) to run the web page's tests and bench`);

/** A browser with a fresh profile under `dir` (the caller removes dir). */
export async function launchChromium(dir: string, viewport = { width: 1200, height: 900 }): Promise<BrowserContext> {
  const { chromium } = await import('playwright-core');
  return chromium.launchPersistentContext(join(dir, 'chromium-profile'), {
    executablePath: CHROMIUM,
    headless: true,
    viewport,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
}
