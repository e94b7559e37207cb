// Where the page tests find Chromium, as `npm test`'s prerequisite check looks for it: Debian's
// package by default (.ci/run installs it), or the binary CHROMIUM_PATH names (macOS: the app's).
import { existsSync } from 'node:fs';
import { chromium, type Browser } from 'playwright-core';
import { chromiumPath } from '../../infra/scripts/check-prerequisites';

export { chromiumPath };

/** Headless in a container: no sandbox, GPU, background traffic or first-run work. */
export const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];

/** Chromium, headless. Without it a page test must fail, never pass by skipping: this throws, naming the package. */
export async function launchChromium(): Promise<Browser> {
  if (!existsSync(chromiumPath)) throw new Error(`Chromium is not installed at ${chromiumPath}: install Debian's chromium package (apt-get install chromium) to run this test`);
  return chromium.launch({ executablePath: chromiumPath, args: chromiumArgs, headless: true });
}
