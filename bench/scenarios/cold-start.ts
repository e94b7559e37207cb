// Scenario 3: every function's bundle size and cold import+init time, beside a bare-SDK baseline.
//
// Each function is bundled as it is deployed (the esbuild settings of infra/stack/lambda-bundling.ts,
// source map included) and loaded as Lambda loads it: a fresh `node` per run, Lambda's environment
// (tracing on, the deployed NODE_OPTIONS) and the tracing layer (infra/stack/tracing-layer.ts), built
// here, on NODE_PATH where /opt/nodejs/node_modules is on Lambda. The time is that of `require` of the
// bundle, measured inside the process; nothing is called. The baseline of a function is a bare
// handler that imports and constructs exactly the SDK clients found in its bundle, bundled and loaded
// the same way: the difference is what our code, Powertools and the X-Ray SDK add to a cold start.
// A second baseline ("traced") also captures those clients with Powertools Tracer, which loads the
// X-Ray SDK from the layer: the difference to it is what our own code adds.
// With BENCH_COLD_BEFORE (a checkout of an earlier commit, with node_modules), that commit's bundles,
// built with its own bundling settings, are measured in the same runs. The runs of each function's
// variants are interleaved, in rotating order, so drift of the machine falls on all of them alike.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import type { BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { build, type BuildOptions, type Metafile } from 'esbuild';
import { bundling, functionNodeOptions, tracingLayerPackage } from '../../infra/stack/lambda-bundling';
import { buildTracingLayer, layerModulesDirectory } from '../../infra/stack/tracing-layer';
import { bundleLimitBytes } from '../../infra/stack/bundle-limits';
import { details, log, median, root, round, row, settings } from '../lib/report';

const scenario = '3 bundle + cold start';

/** The limit of a function's bundle, as the bundle test holds it (infra/stack/bundle-limits.ts). */
const bundleLimitKb = (name: string) => bundleLimitBytes(name) / 1024;
/** The goal for what a function adds to the cold start of its bare SDK clients. */
const overheadGoalMs = 15;

/** The SDK clients a bundle may hold, by package, with how the baseline builds each one. */
export const sdkClients: Readonly<Record<string, { imports: string; construct: string }>> = {
  '@aws-sdk/client-dynamodb': { imports: 'DynamoDBClient', construct: 'new DynamoDBClient({})' },
  '@aws-sdk/client-lambda': { imports: 'LambdaClient', construct: 'new LambdaClient({})' },
  '@aws-sdk/client-s3': { imports: 'S3Client', construct: 'new S3Client({})' },
  '@aws-sdk/client-sesv2': { imports: 'SESv2Client', construct: 'new SESv2Client({})' },
  '@aws-sdk/client-sqs': { imports: 'SQSClient', construct: 'new SQSClient({})' },
  '@aws-sdk/client-scheduler': { imports: 'SchedulerClient', construct: 'new SchedulerClient({})' },
  '@aws-sdk/client-secrets-manager': { imports: 'SecretsManagerClient', construct: 'new SecretsManagerClient({})' },
};
const documentClientPackage = '@aws-sdk/lib-dynamodb';

/** The esbuild options a CDK NodejsFunction with these bundling options uses (those we set). */
export function esbuildOptions(options: BundlingOptions): BuildOptions {
  const mapped = new Set(['minify', 'sourceMap', 'sourcesContent', 'target', 'format', 'mainFields', 'externalModules', 'esbuildArgs']);
  const unmapped = Object.keys(options).filter((key) => !mapped.has(key));
  if (unmapped.length) throw new Error(`bench/scenarios/cold-start.ts does not apply the bundling options ${unmapped.join(', ')}`);
  const alias: Record<string, string> = {};
  const define: Record<string, string> = {};
  let legalComments: BuildOptions['legalComments'];
  for (const [argument, value] of Object.entries(options.esbuildArgs ?? {})) {
    if (argument.startsWith('--alias:')) alias[argument.slice('--alias:'.length)] = String(value);
    else if (argument.startsWith('--define:')) define[argument.slice('--define:'.length)] = String(value);
    else if (argument === '--legal-comments') legalComments = String(value) as BuildOptions['legalComments'];
    else throw new Error(`bench/scenarios/cold-start.ts does not apply the esbuild argument ${argument}`);
  }
  if (options.format !== undefined && options.format !== 'cjs') throw new Error(`bundles are CommonJS, not ${options.format}`);
  return {
    bundle: true,
    platform: 'node',
    format: 'cjs',
    minify: options.minify,
    sourcemap: options.sourceMap,
    sourcesContent: options.sourcesContent,
    target: options.target,
    mainFields: options.mainFields,
    external: options.externalModules,
    alias,
    define,
    ...(legalComments ? { legalComments } : {}),
    metafile: true,
    logLevel: 'silent',
  };
}

/** The SDK packages (clients and the document client) a bundle holds. */
function sdkPackagesIn(metafile: Metafile): Set<string> {
  const found = new Set<string>();
  for (const input of Object.keys(metafile.inputs)) {
    const match = /node_modules\/(@aws-sdk\/(?:client-[a-z0-9-]+|lib-dynamodb))\//.exec(input);
    if (match) found.add(match[1]!);
  }
  return found;
}

/** A handler that only constructs the given SDK clients (captured by Powertools Tracer with `traced`), at import, as one module. */
function baselineEntry(packages: Set<string>, traced = false): string {
  const unknown = [...packages].filter((name) => name !== documentClientPackage && !sdkClients[name]);
  if (unknown.length) throw new Error(`no baseline for the SDK package(s) ${unknown.join(', ')}: add them to sdkClients`);
  const lines: string[] = [];
  const clients: string[] = [];
  for (const [name, client] of Object.entries(sdkClients)) {
    if (!packages.has(name)) continue;
    lines.push(`import { ${client.imports} } from '${name}';`);
    clients.push(client.construct);
  }
  if (packages.has(documentClientPackage)) {
    lines.push(`import { DynamoDBDocumentClient } from '${documentClientPackage}';`);
    const index = clients.indexOf(sdkClients['@aws-sdk/client-dynamodb']!.construct);
    if (index < 0) throw new Error('the document client without the DynamoDB client');
    clients[index] = `DynamoDBDocumentClient.from(${clients[index]})`;
  }
  if (traced) lines.push(`import { Tracer } from '@aws-lambda-powertools/tracer';`, 'const tracer = new Tracer();');
  const built = traced ? clients.map((client) => `tracer.captureAWSv3Client(${client})`) : clients;
  lines.push(`const clients = [${built.join(', ')}];`, 'export const handler = async () => clients.length;');
  return lines.join('\n');
}

interface Variant {
  key: 'ours' | 'baseline' | 'traced' | 'before';
  file: string;
  sizeKb: number;
  times: number[];
  failure?: string;
}

/** Builds with esbuild into `outfile`; the size of the bundle (not its map) and its metafile. */
async function bundle(options: BuildOptions, outfile: string): Promise<{ sizeKb: number; metafile: Metafile }> {
  const result = await build({ ...options, outfile });
  return { sizeKb: round(statSync(outfile).size / 1024, 1), metafile: result.metafile! };
}

/** Functions with a handler in a checkout: `functions/<name>/handler.ts`. */
const functionsIn = (tree: string) =>
  readdirSync(join(tree, 'functions'))
    .filter((name) => existsSync(join(tree, 'functions', name, 'handler.ts')))
    .sort();

/** What Lambda sets for a Node.js function, and what the stack sets, for a bundle in `taskRoot`. */
function lambdaEnvironment(name: string, taskRoot: string, nodePath: string): NodeJS.ProcessEnv {
  return {
    PATH: process.env.PATH ?? '',
    // Powertools Tracer turns tracing on (and instruments http, https and fetch) by the first.
    AWS_EXECUTION_ENV: 'AWS_Lambda_nodejs24.x',
    AWS_LAMBDA_FUNCTION_NAME: name,
    AWS_LAMBDA_FUNCTION_MEMORY_SIZE: '512',
    AWS_LAMBDA_INITIALIZATION_TYPE: 'on-demand',
    // The X-Ray SDK sets up its Lambda facade segment by this one.
    LAMBDA_TASK_ROOT: taskRoot,
    AWS_XRAY_DAEMON_ADDRESS: '169.254.79.129:2000',
    AWS_REGION: 'us-east-1',
    AWS_ACCESS_KEY_ID: 'bench',
    AWS_SECRET_ACCESS_KEY: 'bench',
    NODE_PATH: nodePath,
    NODE_OPTIONS: functionNodeOptions,
    APP_RUNTIME: 'aws',
    TABLE_NAME: 'bench-cold',
    POWERTOOLS_SERVICE_NAME: 'email-campaign-bench',
    LOG_LEVEL: 'silent',
  };
}

/**
 * Milliseconds to `require` a module in a fresh Node process (measured inside it, so Node's own start
 * is not counted), or why it failed. A function bundle must export its handler.
 */
function timeRequire(specifier: string, cwd: string, env: NodeJS.ProcessEnv, isHandler: boolean): number | { failure: string } {
  const check = isHandler ? `if(typeof m.handler!=='function')throw new Error('no handler');` : '';
  const code = `const t=process.hrtime.bigint();const m=require(${JSON.stringify(specifier)});const d=Number(process.hrtime.bigint()-t)/1e6;${check}process.stdout.write(String(d));`;
  // Run outside the repository: `node -e` resolves a bare name from its working directory first, where
  // the repository's node_modules would answer before NODE_PATH (the layer) is asked.
  const result = spawnSync(process.execPath, ['-e', code], { cwd, env, encoding: 'utf8', timeout: 30_000 });
  if (result.status !== 0) return { failure: result.stderr || result.stdout || `exit ${result.status}` };
  return Number(result.stdout.trim());
}

export async function scenarioColdStart(): Promise<void> {
  const outDir = mkdtempSync(join(tmpdir(), 'email-service-bundles-'));
  // Machine paths stay out of the results: a failure's message names the bundles' directory only as this.
  const scrub = (text: string) => text.split(outDir).join('<bundles>').split(root).join('.').slice(0, 300);
  const beforeTree = process.env.BENCH_COLD_BEFORE ? resolve(process.env.BENCH_COLD_BEFORE) : undefined;
  const perFunction: Record<string, unknown> = {};
  try {
    // The tracing layer, as deployed; Lambda has its nodejs/node_modules on NODE_PATH.
    const layerFile = buildTracingLayer(join(outDir, 'layer'));
    const layerKb = round(statSync(layerFile).size / 1024, 1);
    const nodePath = join(outDir, 'layer', layerModulesDirectory);
    row(scenario, 'tracing layer (aws-xray-sdk-core), one for all functions', layerKb, 'KB');
    // What loading the layer alone costs (part of every function's figure below, not of the baseline's).
    const layerTimes: number[] = [];
    for (let run = 0; run < settings.coldRuns; run++) {
      const time = timeRequire(tracingLayerPackage, outDir, lambdaEnvironment('tracing-layer', join(outDir, 'layer'), nodePath), false);
      if (typeof time !== 'number') throw new Error(`the tracing layer does not load: ${scrub(time.failure)}`);
      layerTimes.push(time);
    }
    const layerMs = round(median(layerTimes), 1);
    row(scenario, `tracing layer alone, import+init median of ${settings.coldRuns}`, layerMs, 'ms');
    details.tracing_layer = { bundle_kb: layerKb, import_init_ms_median: layerMs, import_init_ms_min: round(Math.min(...layerTimes)), import_init_ms_max: round(Math.max(...layerTimes)), runs: layerTimes.length };

    let beforeOptions: BuildOptions | undefined;
    let beforeFunctions: string[] = [];
    let beforeCommit: string | undefined;
    if (beforeTree) {
      const module = (await import(join(beforeTree, 'infra', 'stack', 'lambda-bundling.ts'))) as { bundling: BundlingOptions };
      beforeOptions = esbuildOptions(module.bundling);
      beforeFunctions = functionsIn(beforeTree);
      beforeCommit = spawnSync('git', ['-C', beforeTree, 'rev-parse', '--short', 'HEAD'], { encoding: 'utf8' }).stdout.trim() || 'unknown';
      details.cold_start_before = { commit: beforeCommit, functions: beforeFunctions.length };
      log(`also measuring commit ${beforeCommit}`);
    }

    const oursOptions = esbuildOptions(bundling);
    const lines: string[][] = [];
    for (const name of functionsIn(root)) {
      const variants: Variant[] = [];
      let packages = new Set<string>();
      try {
        const oursFile = join(outDir, 'ours', name, 'index.js');
        const ours = await bundle({ ...oursOptions, entryPoints: [join(root, 'functions', name, 'handler.ts')] }, oursFile);
        variants.push({ key: 'ours', file: oursFile, sizeKb: ours.sizeKb, times: [] });
        // The bare handler: this function's SDK clients, nothing else, with the same settings.
        packages = sdkPackagesIn(ours.metafile);
        const baselineFile = join(outDir, 'baseline', name, 'index.js');
        const baseline = await bundle(
          { ...oursOptions, stdin: { contents: baselineEntry(packages), resolveDir: root, sourcefile: `baseline-${name}.ts`, loader: 'ts' } },
          baselineFile,
        );
        const baselinePackages = sdkPackagesIn(baseline.metafile);
        if ([...packages].sort().join() !== [...baselinePackages].sort().join()) throw new Error(`baseline holds ${[...baselinePackages].join(', ')}, the bundle ${[...packages].join(', ')}`);
        variants.push({ key: 'baseline', file: baselineFile, sizeKb: baseline.sizeKb, times: [] });
        const tracedFile = join(outDir, 'traced', name, 'index.js');
        const traced = await bundle(
          { ...oursOptions, stdin: { contents: baselineEntry(packages, true), resolveDir: root, sourcefile: `traced-${name}.ts`, loader: 'ts' } },
          tracedFile,
        );
        variants.push({ key: 'traced', file: tracedFile, sizeKb: traced.sizeKb, times: [] });
        if (beforeTree && beforeOptions && beforeFunctions.includes(name)) {
          const beforeFile = join(outDir, 'before', name, 'index.js');
          const before = await bundle({ ...beforeOptions, entryPoints: [join(beforeTree, 'functions', name, 'handler.ts')], absWorkingDir: beforeTree }, beforeFile);
          variants.push({ key: 'before', file: beforeFile, sizeKb: before.sizeKb, times: [] });
        }
      } catch (error) {
        perFunction[name] = { error: scrub((error as Error).message) };
        row(scenario, `${name} bundle`, null, 'KB', { op: '<=', limit: bundleLimitKb(name) });
        continue;
      }

      for (let run = 0; run < settings.coldRuns; run++) {
        for (let i = 0; i < variants.length; i++) {
          const variant = variants[(run + i) % variants.length]!;
          if (variant.failure) continue;
          const time = timeRequire(variant.file, outDir, lambdaEnvironment(name, dirname(variant.file), nodePath), true);
          if (typeof time === 'number') variant.times.push(time);
          else variant.failure = scrub(time.failure);
        }
      }

      const medianOf = (variant: Variant | undefined) => (variant && !variant.failure && variant.times.length ? round(median(variant.times), 1) : null);
      const [ours, baseline, traced, before] = (['ours', 'baseline', 'traced', 'before'] as const).map((key) => variants.find((variant) => variant.key === key));
      const oursMs = medianOf(ours);
      const baselineMs = medianOf(baseline);
      const beforeMs = medianOf(before);
      const overheadMs = oursMs !== null && baselineMs !== null ? round(oursMs - baselineMs, 1) : null;
      const tracedMs = medianOf(traced);
      const ownMs = oursMs !== null && tracedMs !== null ? round(oursMs - tracedMs, 1) : null;
      const ratio = oursMs !== null && baselineMs ? round(oursMs / baselineMs, 2) : null;
      const summary = (variant: Variant | undefined) =>
        variant && {
          bundle_kb: variant.sizeKb,
          import_init_ms_median: medianOf(variant),
          import_init_ms_min: variant.times.length ? round(Math.min(...variant.times)) : null,
          import_init_ms_max: variant.times.length ? round(Math.max(...variant.times)) : null,
          runs: variant.times.length,
          ...(variant.failure ? { error: variant.failure } : {}),
        };
      perFunction[name] = {
        ...summary(ours),
        sdk_packages: [...packages].sort(),
        baseline: summary(baseline),
        overhead_ms: overheadMs,
        traced_baseline: summary(traced),
        own_code_ms: ownMs,
        ratio_to_baseline: ratio,
        ...(before ? { before: summary(before) } : {}),
      };
      row(scenario, `${name} bundle`, ours!.sizeKb, 'KB', { op: '<=', limit: bundleLimitKb(name) });
      row(scenario, `${name} import+init median of ${settings.coldRuns}`, oursMs, 'ms');
      row(scenario, `${name} baseline (its SDK clients only) import+init`, baselineMs, 'ms');
      row(scenario, `${name} overhead over baseline`, overheadMs, 'ms', { op: '<=', limit: overheadGoalMs });
      row(scenario, `${name} ratio to baseline`, ratio, 'x');
      row(scenario, `${name} traced baseline (its SDK clients + Tracer) import+init`, tracedMs, 'ms');
      row(scenario, `${name} our own code over the traced baseline`, ownMs, 'ms', { op: '<=', limit: overheadGoalMs });
      if (before) {
        row(scenario, `${name} before (${beforeCommit}) bundle`, before.sizeKb, 'KB');
        row(scenario, `${name} before (${beforeCommit}) import+init`, beforeMs, 'ms');
      }
      const cell = (value: number | null) => (value === null ? 'n/a' : String(value));
      lines.push([name, cell(ours!.sizeKb), cell(oursMs), cell(baseline?.sizeKb ?? null), cell(baselineMs), cell(overheadMs), cell(ratio), cell(tracedMs), cell(ownMs), ...(beforeTree ? [cell(before?.sizeKb ?? null), cell(beforeMs)] : [])]);
      log(`${name}: ${ours!.sizeKb} KB, ${oursMs ?? 'failed'} ms; baseline ${baselineMs ?? 'failed'} ms; overhead ${overheadMs ?? 'n/a'} ms${before ? `; before ${before.sizeKb} KB, ${beforeMs ?? 'failed'} ms` : ''}`);
    }

    // Side by side, one line a function (the rows of the main table hold the same figures).
    const header = ['function', 'KB', 'init ms', 'baseline KB', 'baseline ms', 'overhead ms', 'ratio', 'traced ms', 'own ms', ...(beforeTree ? [`before KB`, `before ms`] : [])];
    const widths = header.map((title, i) => Math.max(title.length, ...lines.map((line) => line[i]!.length)));
    const format = (line: string[]) => line.map((cell, i) => (i === 0 ? cell.padEnd(widths[i]!) : cell.padStart(widths[i]!))).join('  ');
    console.log(`\ncold start, median of ${settings.coldRuns} fresh processes each (tracing layer ${layerKb} KB on NODE_PATH, ${layerMs} ms alone)${beforeCommit ? `; before = commit ${beforeCommit}` : ''}`);
    console.log(format(header));
    for (const line of lines) console.log(format(line));
    console.log('');
  } finally {
    rmSync(outDir, { recursive: true, force: true });
  }
  details.cold_start = perFunction;
}
