// One bundled Lambda per HTTP family, configured alike, logging with set retention, and reaching only the table.
import { readFileSync, rmSync } from 'node:fs';
import { isBuiltin } from 'node:module';
import { join } from 'node:path';
import { App } from 'aws-cdk-lib';
import { Match, Template } from 'aws-cdk-lib/assertions';
import { cdkJsonContext } from '../../infra/stack/cdk-json-context';
import { createEmailCampaignStack, type EmailCampaignStack } from '../../infra/stack/email-campaign-stack';
import { repositoryHandlers } from '../../infra/stack/http-functions';
import { httpFamilies, type HttpFamily } from '../../shared/routes';

interface PolicyStatement {
  Action: string | string[];
  Resource: unknown;
}

interface FunctionProperties {
  Code: { S3Key: string };
  Environment: { Variables: Record<string, unknown> };
  LoggingConfig: { LogGroup: unknown };
}

describe('HTTP functions', () => {
  let app: App;
  let stack: EmailCampaignStack;
  let template: Template;

  // The one synthesis in the infra tests that bundles: every family's real entry goes through esbuild.
  beforeAll(() => {
    app = new App({ builtinCloudFormationValidation: false, context: cdkJsonContext() });
    stack = createEmailCampaignStack(app);
    template = Template.fromStack(stack);
  }, 180_000);

  // The bundles take about 12 MB per run in a temporary directory; do not leave them behind.
  afterAll(() => rmSync(app.outdir, { recursive: true, force: true }));

  const logicalIdOf = (family: HttpFamily): string => {
    const resolved = stack.resolve(stack.httpFunctions.functionOf(family).functionArn) as { 'Fn::GetAtt': [string, string] };
    return resolved['Fn::GetAtt'][0];
  };

  function policyStatementsOf(family: HttpFamily): PolicyStatement[] {
    const role = stack.resolve(stack.httpFunctions.functionOf(family).role?.roleName) as unknown;
    const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [role] } }));
    expect(policies).toHaveLength(1);
    return (policies[0] as { Properties: { PolicyDocument: { Statement: PolicyStatement[] } } }).Properties.PolicyDocument
      .Statement;
  }

  const functionProperties = (family: HttpFamily): FunctionProperties =>
    (template.toJSON().Resources[logicalIdOf(family)] as { Properties: FunctionProperties }).Properties;

  const actionsOf = (statement: PolicyStatement): string[] =>
    Array.isArray(statement.Action) ? statement.Action : [statement.Action];

  test('takes each family handler from functions/<family>/handler.ts by default', () => {
    expect(repositoryHandlers.entryFor('contact-types')).toBe(join(repositoryHandlers.projectRoot, 'functions', 'contact-types', 'handler.ts'));
    expect(repositoryHandlers.projectRoot).toBe(join(__dirname, '..', '..'));
  });

  test('deploys exactly one function per HTTP family', () => {
    template.resourceCountIs('AWS::Lambda::Function', httpFamilies.length);
    expect(new Set(httpFamilies.map(logicalIdOf)).size).toBe(httpFamilies.length);
  });

  test.each([...httpFamilies])('%s runs on arm64 Node 20 with 512 MB, 29 s and active tracing', (family) => {
    expect(functionProperties(family)).toMatchObject({
      Runtime: 'nodejs20.x',
      Architectures: ['arm64'],
      Handler: 'index.handler',
      MemorySize: 512,
      Timeout: 29,
      TracingConfig: { Mode: 'Active' },
    });
  });

  test.each([...httpFamilies])('%s knows the table, the runtime, the API root and maps stack traces', (family) => {
    expect(functionProperties(family).Environment.Variables).toEqual({
      TABLE_NAME: stack.resolve(stack.table.tableName),
      APP_RUNTIME: 'aws',
      PUBLIC_BASE_URL: { 'Fn::Join': ['', [stack.resolve(stack.httpApi.apiEndpoint), '/api/']] },
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  test('each function logs to its own log group kept for 30 days', () => {
    template.resourceCountIs('AWS::Logs::LogGroup', httpFamilies.length);
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    const logGroupIds = Object.keys(template.findResources('AWS::Logs::LogGroup'));
    const used = httpFamilies.map((family) => (functionProperties(family).LoggingConfig.LogGroup as { Ref: string }).Ref);
    expect([...used].sort()).toEqual([...logGroupIds].sort());
  });

  test.each([...httpFamilies])('%s may use DynamoDB only on the table and its indexes', (family) => {
    const tableArn = stack.resolve(stack.table.tableArn) as unknown;
    const dynamoStatements = policyStatementsOf(family).filter((statement) =>
      actionsOf(statement).some((action) => action.startsWith('dynamodb:')),
    );

    expect(dynamoStatements).toHaveLength(1);
    expect(dynamoStatements[0]?.Resource).toEqual([tableArn, { 'Fn::Join': ['', [tableArn, '/index/*']] }]);
    expect(actionsOf(dynamoStatements[0] as PolicyStatement)).toEqual(
      expect.arrayContaining(['dynamodb:GetItem', 'dynamodb:PutItem', 'dynamodb:UpdateItem', 'dynamodb:Query']),
    );
  });

  test.each([...httpFamilies])('%s has no wildcard resource except for X-Ray, which has no resource-level permissions', (family) => {
    for (const statement of policyStatementsOf(family)) {
      if (statement.Resource !== '*') continue;
      expect(actionsOf(statement).every((action) => action.startsWith('xray:'))).toBe(true);
    }
  });

  test.each([...httpFamilies])('%s bundles its code with the AWS SDK instead of taking the runtime one', (family) => {
    const assetHash = functionProperties(family).Code.S3Key.replace(/\.zip$/, '');
    const bundle = readFileSync(join(app.outdir, `asset.${assetHash}`, 'index.js'), 'utf8');
    const requiredAtRuntime = new Set([...bundle.matchAll(/require\(["']([^"']+)["']\)/g)].map((match) => match[1] as string));
    const packagesRequiredAtRuntime = [...requiredAtRuntime].filter((name) => !isBuiltin(name)).sort();

    // Only the SDK's optional SigV4a signers stay outside: it loads them in a try/catch, and we do not install them.
    expect(packagesRequiredAtRuntime).toEqual(['@aws-sdk/signature-v4-crt', '@aws-sdk/signature-v4a']);
    expect(bundle).toMatch(/^\/\/# sourceMappingURL=index\.js\.map$/m);
  });

  test('outputs the API root and the table name', () => {
    template.hasOutput('ApiBaseUrl', { Value: Match.anyValue() });
    template.hasOutput('TableName', { Value: stack.resolve(stack.table.tableName) });
  });
});
