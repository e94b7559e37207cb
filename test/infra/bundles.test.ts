// The one infra test file that bundles: every function's real entry goes through esbuild, and each
// bundle is minified, carries its source map, needs no package from the runtime, signs its AWS calls
// itself with environment credentials (no generated SDK client, no SSO/INI/IMDS chain), and stays
// under 350 KB.
import { readFileSync, rmSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { eventFunctionNames } from '../../infra/stack/service-functions';
import { httpFamilies } from '../../shared/routes';
import { functionProperties, synthesize, type Synthesized } from './support';

const allFunctions = [...httpFamilies, ...eventFunctionNames()];

/** The target of the brief: 350 KB per minified bundle, for every function. */
const targetBytes = 350 * 1024;

describe('function bundles', () => {
  let synthesized: Synthesized;
  const sizes = new Map<string, number>();

  beforeAll(() => {
    synthesized = synthesize({}, { bundle: true });
  }, 180_000);

  // The bundles take about 15 MB per run in a temporary directory; do not leave them behind.
  afterAll(() => {
    // One line for the closing note: every function's bundle size.
    process.stdout.write(`bundle sizes (KB): ${[...sizes].map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)}`).join(', ')}\n`);
    rmSync(synthesized.app.outdir, { recursive: true, force: true });
  });

  const assetDirectory = (name: string) =>
    join(synthesized.app.outdir, `asset.${functionProperties(synthesized, name).Code.S3Key.replace(/\.zip$/, '')}`);
  const bundleOf = (name: string) => readFileSync(join(assetDirectory(name), 'index.js'), 'utf8');

  test.each(allFunctions)('%s holds every package it loads instead of taking one from the runtime', (name) => {
    const bundle = bundleOf(name);
    const requiredAtRuntime = new Set([...bundle.matchAll(/require\(["']([^"']+)["']\)/g)].map((match) => match[1] as string));
    expect([...requiredAtRuntime].filter((module) => !isBuiltin(module)).sort()).toEqual([]);
  });

  test.each(allFunctions)('%s is minified and maps its stack traces', (name) => {
    const bundle = bundleOf(name);
    expect(/^\/\/# sourceMappingURL=index\.js\.map$/m.test(bundle)).toBe(true);
    expect(statSync(join(assetDirectory(name), 'index.js.map')).size).toBeGreaterThan(0);
    // Minified code has few, very long lines.
    expect(bundle.split('\n').length).toBeLessThan(100);
  });

  test.each(allFunctions)('%s signs its own AWS calls with environment credentials, without an SDK client', (name) => {
    const bundle = bundleOf(name);
    // The fallback only answers unknown paths; it calls no AWS service at all.
    const callsAws = name !== 'fallback';
    expect(bundle.includes('AWS_ACCESS_KEY_ID')).toBe(callsAws);
    expect(bundle.includes('AWS4-HMAC-SHA256')).toBe(callsAws);
    // Strings only the SDK's middleware stack and its default credential chain (SSO, credential_process,
    // web identity) contain.
    const markers = ['middlewareStack', 'sso_start_url', 'credential_process', 'AWS_WEB_IDENTITY_TOKEN_FILE'];
    expect(markers.filter((marker) => bundle.includes(marker))).toEqual([]);
  });

  test.each(allFunctions)('%s stays under 350 KB minified', (name) => {
    const bytes = statSync(join(assetDirectory(name), 'index.js')).size;
    sizes.set(name, bytes);
    expect(bytes).toBeLessThanOrEqual(targetBytes);
  });
});
