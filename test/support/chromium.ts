// Where the page tests find Chromium, as `npm test`'s prerequisite check looks for it: Debian's
// package by default (.ci/run installs it), or the binary CHROMIUM_PATH names (macOS: the app's).
export { chromiumPath } from '../../infra/scripts/check-prerequisites';

/** Headless in a container: no sandbox, GPU, background traffic or first-run work. */
export const chromiumArgs = ['--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-quic', '--no-first-run'];
