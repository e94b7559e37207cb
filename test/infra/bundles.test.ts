// The one infra test file that bundles: every function's real entry goes through esbuild, and each
// bundle is minified, carries its source map, needs no package from the runtime but the tracing
// layer's, holds exactly the official SDK clients its code imports (with the X-Ray capture around
// them), loads with the layer on NODE_PATH as on Lambda, and stays under 480 KB. The tracing layer is
// built too: one file every function finds at /opt/nodejs/node_modules.
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, rmSync, statSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { bundling, repositoryHandlers, tracingLayerPackage } from '../../infra/stack/lambda-bundling';
import { layerModulesDirectory } from '../../infra/stack/tracing-layer';
import { bundleLimitBytes } from '../../infra/stack/bundle-limits';
import { eventFunctionNames } from '../../infra/stack/service-functions';
import { httpFamilies } from '../../shared/routes';
import { functionProperties, synthesize, type Synthesized } from './support';

const allFunctions = [...httpFamilies, ...eventFunctionNames()];

// The limits, and why two functions have their own: infra/stack/bundle-limits.ts.

/** A string each SDK client's bundled code carries (its endpoint ruleset's signing name or target prefix). */
const clientMarkers = {
  dynamodb: 'DynamoDB_20120810',
  sesv2: 'SESv2Client',
  sqs: 'AmazonSQS',
  scheduler: 'SchedulerClient',
  secretsManager: 'secretsmanager',
} as const;

/**
 * Runs `code` in a fresh Node process (not Jest's module sandbox), as Lambda would load it, from `cwd`:
 * a directory outside the repository, whose node_modules would otherwise answer a bare `require`.
 */
function runNode(code: string, cwd: string, env: Record<string, string>): { status: number | null; stdout: string; stderr: string } {
  // Only what the code needs from this process's environment: no credentials, no NODE_OPTIONS.
  const run = spawnSync(process.execPath, ['-e', code], { cwd, env: { PATH: process.env.PATH ?? '', ...env }, encoding: 'utf8', timeout: 30_000 });
  return { status: run.status, stdout: run.stdout, stderr: run.stderr };
}

describe('function bundles', () => {
  let synthesized: Synthesized;
  const sizes = new Map<string, number>();
  let layerBytes = 0;

  beforeAll(() => {
    synthesized = synthesize({}, { bundle: true });
  }, 180_000);

  // The bundles take about 15 MB per run in a temporary directory; do not leave them behind.
  afterAll(() => {
    // One line for the closing note: every function's bundle size.
    process.stdout.write(`bundle sizes (KB): ${[...sizes].map(([name, bytes]) => `${name} ${(bytes / 1024).toFixed(0)}`).join(', ')}\n`);
    process.stdout.write(`tracing layer (KB): ${tracingLayerPackage} ${(layerBytes / 1024).toFixed(0)}\n`);
    rmSync(synthesized.app.outdir, { recursive: true, force: true });
  });

  const assetDirectory = (name: string) =>
    join(synthesized.app.outdir, `asset.${functionProperties(synthesized, name).Code.S3Key.replace(/\.zip$/, '')}`);
  const bundleOf = (name: string) => readFileSync(join(assetDirectory(name), 'index.js'), 'utf8');

  /** The one layer version of the stack, by logical id and asset directory. */
  const layer = () => {
    const layers = Object.entries(synthesized.template.findResources('AWS::Lambda::LayerVersion'));
    expect(layers).toHaveLength(1);
    const [logicalId, resource] = layers[0] as [string, { Properties: { Content: { S3Key: string } } }];
    return { logicalId, directory: join(synthesized.app.outdir, `asset.${resource.Properties.Content.S3Key.replace(/\.zip$/, '')}`) };
  };
  const layerModules = () => join(layer().directory, layerModulesDirectory);
  const layerFile = () => join(layerModules(), tracingLayerPackage, 'index.js');

  describe('tracing layer', () => {
    test('is built for the functions\' runtime and architecture', () => {
      synthesized.template.hasResourceProperties('AWS::Lambda::LayerVersion', { CompatibleRuntimes: ['nodejs24.x'], CompatibleArchitectures: ['arm64'] });
    });

    test(`holds ${tracingLayerPackage} as one minified file and a package.json naming it`, () => {
      expect(existsSync(layerFile())).toBe(true);
      layerBytes = statSync(layerFile()).size;
      expect(layerBytes).toBeGreaterThan(0);
      expect(readFileSync(layerFile(), 'utf8').split('\n').length).toBeLessThan(100);
      const manifest = JSON.parse(readFileSync(join(layerModules(), tracingLayerPackage, 'package.json'), 'utf8')) as Record<string, unknown>;
      const pinned = JSON.parse(readFileSync(require.resolve(`${tracingLayerPackage}/package.json`), 'utf8')) as { version: string };
      expect(manifest).toMatchObject({ name: tracingLayerPackage, version: pinned.version, main: 'index.js' });
    });

    test('loads in Node by its package name from NODE_PATH and exports the SDK v3 client capture', () => {
      const code = `const x = require(${JSON.stringify(tracingLayerPackage)}); process.stdout.write(typeof x.captureAWSv3Client);`;
      const run = runNode(code, synthesized.app.outdir, { NODE_PATH: layerModules() });
      // And not without it: nothing else answers from there.
      expect(runNode(code, synthesized.app.outdir, {}).stderr).toContain(`Cannot find module '${tracingLayerPackage}'`);
      expect(run.stderr).toBe('');
      expect(run.stdout).toBe('function');
    });

    test('needs nothing but Node builtins, and carries the X-Ray middleware the captured clients run', () => {
      const file = readFileSync(layerFile(), 'utf8');
      // Module names in it are relative to the package, so its content (and hash) is the same anywhere.
      expect(file.includes(repositoryHandlers.projectRoot)).toBe(false);
      const requiredAtRuntime = new Set([...file.matchAll(/require\(["']([^"']+)["']\)/g)].map((match) => match[1] as string));
      expect([...requiredAtRuntime].filter((module) => !isBuiltin(module))).toEqual([]);
      expect(file.includes('XRaySDKInstrumentation')).toBe(true);
    });

    test.each(allFunctions)('is attached to %s', (name) => {
      expect(functionProperties(synthesized, name).Layers).toEqual([{ Ref: layer().logicalId }]);
    });
  });

  test.each(allFunctions)('%s holds every package it loads but the external ones (the tracing layer\'s, optional signers)', (name) => {
    const bundle = bundleOf(name);
    const requiredAtRuntime = new Set([...bundle.matchAll(/require\(["']([^"']+)["']\)/g)].map((match) => match[1] as string));
    const external = new Set(bundling.externalModules);
    expect([...requiredAtRuntime].filter((module) => !isBuiltin(module) && !external.has(module)).sort()).toEqual([]);
    // The X-Ray SDK comes from the layer, not from the bundle.
    expect(requiredAtRuntime.has(tracingLayerPackage)).toBe(true);
    expect(bundle.includes('XRaySDKInstrumentation')).toBe(false);
  });

  test.each(allFunctions)('%s loads with the tracing layer on NODE_PATH, as on Lambda', (name) => {
    const code = `const m = require(${JSON.stringify(join(assetDirectory(name), 'index.js'))}); process.stdout.write(typeof m.handler);`;
    // Lambda's variables that switch Powertools Tracer and the X-Ray SDK to their Lambda set-up at load.
    const lambdaLike = {
      AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
      AWS_LAMBDA_FUNCTION_NAME: name,
      LAMBDA_TASK_ROOT: assetDirectory(name),
      AWS_REGION: 'us-east-1',
      POWERTOOLS_SERVICE_NAME: 'bundles-test',
      LOG_LEVEL: 'silent',
    };
    const run = runNode(code, synthesized.app.outdir, { ...lambdaLike, NODE_PATH: layerModules() });
    expect(run.stderr).toBe('');
    expect(run.stdout).toBe('function');
    // And not without it: the package is really left to the layer.
    expect(runNode(code, synthesized.app.outdir, lambdaLike).stderr).toContain(`Cannot find module '${tracingLayerPackage}'`);
  });

  test.each(allFunctions)('%s is minified and maps its stack traces', (name) => {
    const bundle = bundleOf(name);
    expect(/^\/\/# sourceMappingURL=index\.js\.map$/m.test(bundle)).toBe(true);
    expect(statSync(join(assetDirectory(name), 'index.js.map')).size).toBeGreaterThan(0);
    // Minified code has few, very long lines.
    expect(bundle.split('\n').length).toBeLessThan(100);
  });

  test.each(allFunctions)('%s carries the official SDK clients it calls, captured for X-Ray, and no hand-made signing', (name) => {
    const bundle = bundleOf(name);
    const present = Object.entries(clientMarkers).filter(([, marker]) => bundle.includes(marker)).map(([client]) => client);
    // The fallback only answers unknown paths and calls no AWS service. It still carries the two
    // clients the HTTP pipeline's authentication imports (shared/http/pipeline.ts, shared/auth/), which
    // are built on first use and so never; whatever else it holds, it has no mail, queue or schedules.
    // The api-docs function is the same: it serves files and calls nothing (functions/api-docs).
    if (name === 'fallback' || name === 'api-docs') {
      expect(present.filter((client) => client !== 'dynamodb' && client !== 'secretsManager')).toEqual([]);
      return;
    }
    // Every other function reads the table and may load the token-signing key from Secrets Manager,
    // and captures its clients (the capture's middleware is in the layer, checked above).
    expect(present).toEqual(expect.arrayContaining(['dynamodb', 'secretsManager']));
    expect(bundle.includes('captureAWSv3Client')).toBe(true);
    expect(bundle.includes('AWS4-HMAC-SHA256') && !bundle.includes('@smithy/signature-v4') && /function signRequest\b/.test(bundle)).toBe(false);
  });

  // The API docs viewer (swagger-ui-dist, 1.9 MB) could never fit the limit, which is about code a
  // cold start loads: its files are packaged beside the bundle (api-docs/, read when first served)
  // and exempt, while the function's code bundle itself is held to the limit like every other.
  test('api-docs packages the OpenAPI document and the viewer beside its code bundle', () => {
    const files = join(assetDirectory('api-docs'), 'api-docs');
    for (const file of ['openapi.json', 'swagger-ui-bundle.js', 'swagger-ui.css', 'viewer.js']) expect(statSync(join(files, file)).size).toBeGreaterThan(0);
    const document = JSON.parse(readFileSync(join(files, 'openapi.json'), 'utf8')) as { paths: Record<string, unknown> };
    expect(Object.keys(document.paths)).toContain('/api/contacts-type/add');
    expect(bundleOf('api-docs').includes('SwaggerUIBundle')).toBe(false);
  });

  test.each(allFunctions)('%s stays under 480 KB minified (single-sends: 530 KB, with the Lambda client; ses-events: 640 KB, with the S3 client)', (name) => {
    const bytes = statSync(join(assetDirectory(name), 'index.js')).size;
    sizes.set(name, bytes);
    expect({ name, within: bytes <= bundleLimitBytes(name) }).toEqual({ name, within: true });
    // Only the function that reads objects carries the S3 client, and only the one that starts jobs at once the Lambda client.
    expect({ name, s3: bundleOf(name).includes('S3Client') }).toEqual({ name, s3: name === 'ses-events' });
    expect({ name, lambda: bundleOf(name).includes('LambdaClient') }).toEqual({ name, lambda: name === 'single-sends' });
  });
});
