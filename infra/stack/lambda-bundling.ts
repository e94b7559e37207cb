// One Lambda function as every HTTP family and event function is built: a minified esbuild bundle
// with the SDK inside and source maps, its own role, its own log group with retention, and tracing.
import { join, resolve } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import { Role, ServicePrincipal } from 'aws-cdk-lib/aws-iam';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat, type BundlingOptions } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import type { Construct } from 'constructs';

/** Where the handlers are bundled from; tests may point it at stand-in handlers. */
export interface HandlerSource {
  /** Holds `package-lock.json` and every entry; esbuild runs here. */
  projectRoot: string;
  /** The entry of a function: an HTTP family or an event function, `functions/<name>/handler.ts`. */
  entryFor: (name: string) => string;
}

const repositoryRoot = resolve(__dirname, '..', '..');

export const repositoryHandlers: HandlerSource = {
  projectRoot: repositoryRoot,
  entryFor: (name) => join(repositoryRoot, 'functions', name, 'handler.ts'),
};

export const bundling: BundlingOptions = {
  minify: true,
  sourceMap: true,
  // Stack traces need only the mappings; embedding the sources would roughly double the asset.
  sourcesContent: false,
  target: 'node20',
  format: OutputFormat.CJS,
  // Packages' ES module builds first: esbuild can drop what a bundle does not use from those, not from
  // CommonJS (the logger and the CSV parser shrink by a third).
  mainFields: ['module', 'main'],
  // Nothing is left to the runtime: the AWS calls are our own signed requests (shared/aws/), whose
  // only SDK piece is the attribute-value converter, so every byte a function loads is in its bundle.
  externalModules: [],
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
    // Node 20 left Lambda's supported runtimes in 2026; bundles still target node20, so the code runs
    // unchanged on the local Node 20 as well.
    runtime: Runtime.NODEJS_24_X,
    architecture: Architecture.ARM_64,
    memorySize: props.memorySize,
    timeout: props.timeout,
    tracing: Tracing.ACTIVE,
    role,
    logGroup,
    environment: { ...props.environment, NODE_OPTIONS: '--enable-source-maps' },
    bundling,
  });
}
