// One Lambda function as every HTTP family and event function is built: a minified esbuild bundle
// with the SDK clients inside and source maps, the shared tracing layer (tracing-layer.ts), its own
// role, its own log group with retention, and tracing.
import { join, resolve } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing, type ILayerVersion } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';
import { lambdaNodeMajor } from '../lambda-node';

/** Where the handlers are bundled from; tests may point it at stand-in handlers. */
export interface HandlerSource {
  /** Holds `package-lock.json` and every entry; esbuild runs here. */
  projectRoot: string;
  /** The entry of a function: an HTTP family or an event function, `functions/<name>/handler.ts`. */
  entryFor: (name: string) => string;
}

export const repositoryRoot = resolve(__dirname, '..', '..');

export const repositoryHandlers: HandlerSource = {
  projectRoot: repositoryRoot,
  entryFor: (name) => join(repositoryRoot, 'functions', name, 'handler.ts'),
};

/** The module that replaces the SDK's default credential chain in every bundle (see lambda-credentials.ts). */
export const lambdaCredentialsModule = join(repositoryRoot, 'infra', 'stack', 'lambda-credentials.ts');

// Lambda's Node.js 24; the tests and the local stack run on the same major (infra/lambda-node.ts).
export const functionRuntime = Runtime.NODEJS_24_X;
export const functionArchitecture = Architecture.ARM_64;

/** Node's options on every function: stack traces through the bundles' source maps. */
export const functionNodeOptions = '--enable-source-maps';

/** The package every function loads from the tracing layer instead of carrying it (see tracing-layer.ts). */
export const tracingLayerPackage = 'aws-xray-sdk-core';

export const bundling: BundlingOptions = {
  minify: true,
  sourceMap: true,
  // Stack traces need only the mappings; embedding the sources would roughly double the asset.
  sourcesContent: false,
  target: `node${lambdaNodeMajor}`,
  format: OutputFormat.CJS,
  // Packages' ES module builds first: esbuild can drop what a bundle does not use from those, not from
  // CommonJS (the logger and the CSV parser shrink by a third).
  mainFields: ['module', 'main'],
  // The SDK is bundled: we pin its version, and only the clients a function imports are in its bundle.
  // Left out:
  // - the X-Ray SDK that Powertools Tracer requires (110 KB of every bundle, with cls-hooked, semver
  //   and the rest): it is identical in all 19 functions, so it is deployed once, in the tracing layer
  //   (tracing-layer.ts), built from our pinned node_modules, and loaded from /opt/nodejs/node_modules
  //   (on Lambda's NODE_PATH) as Powertools' own published layer does. Its load time is still each
  //   function's: the init-time bench (bench/scenarios/cold-start.ts) loads every bundle with the
  //   layer resolvable.
  // - two SigV4a signers the SDK requires optionally, inside a try, for multi-region endpoints we
  //   never call.
  // Nothing else is taken from the runtime.
  externalModules: [tracingLayerPackage, '@aws-sdk/signature-v4-crt', '@aws-sdk/signature-v4a'],
  esbuildArgs: {
    '--alias:@aws-sdk/credential-provider-node': lambdaCredentialsModule,
    // A bundle's runtime is never local: code only a local run needs is dropped (shared/queue/local-adapter.ts).
    '--define:process.env.LAMBDA_BUNDLE': '"true"',
    // Comments packages mark to be kept (licenses, and pragmas such as Powertools' `v8 ignore ...
    // @preserve`) go to index.js.LEGAL.txt beside the bundle, not into the code every cold start parses.
    '--legal-comments': 'external',
  },
};

export interface BundledFunctionProps {
  /** `functions/<name>/handler.ts`; also names the log group's owner in the console. */
  name: string;
  source: HandlerSource;
  timeout: Duration;
  memorySize: number;
  environment: Record<string, string>;
  logRetention: RetentionDays;
  allowDestroy: boolean;
  description: string;
  /** A fixed function name, for functions whose ARN must be known without referencing them. */
  functionName?: string;
  /** The stack's one tracing layer: the bundle requires `tracingLayerPackage` from it. */
  tracingLayer: ILayerVersion;
  /**
   * Files packaged beside the bundle, outside its code (the API docs viewer): `directory`'s content is
   * copied to `<package>/<into>/`, so the code bundle stays under its size limit.
   */
  files?: { directory: string; into: string };
}

/** The bundling of one function: the shared options, plus the copy of its packaged files if it has any. */
function bundlingOf(props: BundledFunctionProps): BundlingOptions {
  const files = props.files;
  if (!files) return bundling;
  const quote = (path: string) => `'${path.replace(/'/g, `'\\''`)}'`;
  return {
    ...bundling,
    commandHooks: {
      beforeBundling: () => [],
      beforeInstall: () => [],
      afterBundling: (_inputDir: string, outputDir: string) => [
        `mkdir -p ${quote(join(outputDir, files.into))}`,
        `cp -R ${quote(`${files.directory}/.`)} ${quote(join(outputDir, files.into))}`,
      ],
    },
  };
}

/** PascalCase construct id of a kebab-case function name. */
export function constructId(name: string): string {
  return name.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}

export function bundledFunction(scope: Construct, props: BundledFunctionProps): NodejsFunction {
  const id = constructId(props.name);
  // An explicit log group, rather than the one Lambda creates on first write, so retention is set
  // and the group is owned (and removed) by the stack.
  const logGroup = new LogGroup(scope, `${id}Logs`, {
    retention: props.logRetention,
    removalPolicy: props.allowDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
  });
  // Its own role without the AWS managed basic-execution policy: it may write to its log group only.
  const role = new Role(scope, `${id}Role`, {
    assumedBy: new ServicePrincipal('lambda.amazonaws.com'),
    description: `Runs the ${props.name} function`,
  });
  logGroup.grantWrite(role);
  return new NodejsFunction(scope, id, {
    entry: props.source.entryFor(props.name),
    handler: 'handler',
    functionName: props.functionName,
    description: props.description,
    projectRoot: props.source.projectRoot,
    depsLockFilePath: join(props.source.projectRoot, 'package-lock.json'),
    runtime: functionRuntime,
    architecture: functionArchitecture,
    layers: [props.tracingLayer],
    memorySize: props.memorySize,
    timeout: props.timeout,
    tracing: Tracing.ACTIVE,
    role,
    logGroup,
    environment: { ...props.environment, NODE_OPTIONS: functionNodeOptions },
    bundling: bundlingOf(props),
  });
}
