// One Lambda per HTTP family, bundled locally with esbuild, with its own log group and table access.
import { join, resolve } from 'node:path';
import { Duration, RemovalPolicy } from 'aws-cdk-lib';
import type { ITable } from 'aws-cdk-lib/aws-dynamodb';
import { Architecture, Runtime, Tracing } from 'aws-cdk-lib/aws-lambda';
import { NodejsFunction, OutputFormat } from 'aws-cdk-lib/aws-lambda-nodejs';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { Construct } from 'constructs';
import { httpFamilies, type HttpFamily } from '../../shared/routes';

/** Where the handlers are bundled from; tests may point it at stand-in handlers. */
export interface HandlerSource {
  /** Holds `package-lock.json` and every entry; esbuild runs here. */
  projectRoot: string;
  entryFor: (family: HttpFamily) => string;
}

const repositoryRoot = resolve(__dirname, '..', '..');

export const repositoryHandlers: HandlerSource = {
  projectRoot: repositoryRoot,
  entryFor: (family) => join(repositoryRoot, 'functions', family, 'handler.ts'),
};

export interface HttpFunctionsProps {
  table: ITable;
  /** The API root as clients see it (ending in `/api/`), for links the functions put in responses. */
  publicBaseUrl: string;
  logRetention: RetentionDays;
  allowDestroy: boolean;
  handlerSource?: HandlerSource;
}

function constructId(family: HttpFamily): string {
  return family.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());
}

export class HttpFunctions extends Construct {
  readonly byFamily: ReadonlyMap<HttpFamily, NodejsFunction>;

  constructor(scope: Construct, id: string, props: HttpFunctionsProps) {
    super(scope, id);
    const source = props.handlerSource ?? repositoryHandlers;
    const byFamily = new Map<HttpFamily, NodejsFunction>();
    for (const family of httpFamilies) {
      const name = constructId(family);
      // An explicit log group, rather than the one Lambda creates on first write, so retention is set
      // and the group is owned (and removed) by the stack.
      const logGroup = new LogGroup(this, `${name}Logs`, {
        retention: props.logRetention,
        removalPolicy: props.allowDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      });
      const fn = new NodejsFunction(this, name, {
        entry: source.entryFor(family),
        handler: 'handler',
        projectRoot: source.projectRoot,
        depsLockFilePath: join(source.projectRoot, 'package-lock.json'),
        runtime: Runtime.NODEJS_20_X,
        architecture: Architecture.ARM_64,
        memorySize: 512,
        // API Gateway gives up on an integration after 30 s; stop first so the client gets our answer.
        timeout: Duration.seconds(29),
        tracing: Tracing.ACTIVE,
        logGroup,
        environment: {
          TABLE_NAME: props.table.tableName,
          APP_RUNTIME: 'aws',
          PUBLIC_BASE_URL: props.publicBaseUrl,
          NODE_OPTIONS: '--enable-source-maps',
        },
        bundling: {
          minify: true,
          sourceMap: true,
          // Stack traces need only the mappings; embedding the sources would roughly double the asset.
          sourcesContent: false,
          target: 'node20',
          format: OutputFormat.CJS,
          // Bundle the SDK: we pin its version, and a bundled, tree-shaken client loads faster than the runtime's.
          externalModules: [],
        },
      });
      props.table.grantReadWriteData(fn);
      byFamily.set(family, fn);
    }
    this.byFamily = byFamily;
  }

  functionOf(family: HttpFamily): NodejsFunction {
    const fn = this.byFamily.get(family);
    if (!fn) throw new Error(`No function for HTTP family ${family}`);
    return fn;
  }
}
