import { existsSync } from 'node:fs';
import { chromium, type LaunchOptions } from '@playwright/test';

/** Flags that keep Chromium from reaching for the network at start (these machines have none). */
export const chromiumArgs = [
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
];

/**
 * Playwright's own Chromium where it was downloaded, else the system's (Debian's `chromium`, which
 * .ci/run installs): Playwright cannot download its browsers on these machines.
 */
export function chromiumLaunchOptions(): LaunchOptions {
  const bundled = chromium.executablePath();
  if (existsSync(bundled)) return { args: chromiumArgs };
  const system = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
  if (!existsSync(system)) {
    throw new Error(`No Chromium found: neither Playwright's (${bundled}) nor ${system}. Install Debian's chromium (apt install chromium).`);
  }
  return { executablePath: system, args: chromiumArgs };
}
