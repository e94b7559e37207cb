// Every function (one per HTTP family, one per event function) is configured alike, logs to its own
// log group, and holds exactly the permissions and environment its needs call for.
import { join } from 'node:path';
import { Stack } from 'aws-cdk-lib';
import { repositoryHandlers } from '../../infra/stack/lambda-bundling';
import { functionNeeds, needsOf } from '../../infra/stack/function-needs';
import { eventFunctionNames } from '../../infra/stack/service-functions';
import { functionTimeoutSeconds } from '../../infra/function-timeouts';
import { httpFamilies } from '../../shared/routes';
import { actionsOf, functionProperties, grantsFor, logicalIdOf, policyStatementsOf, statementsFor, synthesize, type Synthesized } from './support';

const eventFunctions = eventFunctionNames();
const allFunctions = [...httpFamilies, ...eventFunctions];
const indexIn = (tableArn: unknown, index: string) => ({ 'Fn::Join': ['', [tableArn, `/index/${index}`]] });
const withNeed = (need: 'mail' | 'accountMail' | 'schedules' | 'systemMail' | 'identities' | 'suppressionList') => allFunctions.filter((name) => needsOf(name)[need] === true);
/** What managing sending identities is authorized as (shared/identities/ses-identities.ts). */
const identityActions = ['ses:CreateEmailIdentity', 'ses:DeleteEmailIdentity', 'ses:GetEmailIdentity', 'ses:SendCustomVerificationEmail'];
/** What making and reading the accounts' SES tenants is authorized as (shared/tenants/). */
const tenantActions = ['ses:CreateTenant', 'ses:GetTenant', 'ses:CreateTenantResourceAssociation'];

describe('functions', () => {
  let synthesized: Synthesized;
  const resolve = (value: unknown): unknown => synthesized.stack.resolve(value);
  const tenantArns = () => Stack.of(synthesized.stack).formatArn({ service: 'ses', resource: 'tenant', resourceName: '*' });

  beforeAll(() => {
    synthesized = synthesize({ senderDomain: 'mail.example.org' });
  });

  test('takes each handler from functions/<name>/handler.ts by default', () => {
    expect(repositoryHandlers.entryFor('contact-types')).toBe(join(repositoryHandlers.projectRoot, 'functions', 'contact-types', 'handler.ts'));
    expect(repositoryHandlers.projectRoot).toBe(join(__dirname, '..', '..'));
  });

  test('deploys one function per HTTP family and per event function, and no other', () => {
    expect(eventFunctions).toEqual(expect.arrayContaining(['send-dispatch', 'send-deliver', 'ses-events']));
    // Plus CDK's singleton Lambda of the AwsCustomResource that makes SES's custom verification template.
    synthesized.template.resourceCountIs('AWS::Lambda::Function', allFunctions.length + 1);
    expect(new Set(allFunctions.map((name) => logicalIdOf(synthesized, name))).size).toBe(allFunctions.length);
  });

  test.each(allFunctions)('%s runs on arm64 Node 24 with active tracing and source maps', (name) => {
    const properties = functionProperties(synthesized, name);
    expect(properties).toMatchObject({ Runtime: 'nodejs24.x', Architectures: ['arm64'], Handler: 'index.handler', TracingConfig: { Mode: 'Active' } });
    expect(properties.Environment.Variables.NODE_OPTIONS).toBe('--enable-source-maps');
  });

  test.each(allFunctions)('%s is deployed with the time limit the local runtime gives it too', (name) => {
    expect(functionProperties(synthesized, name).Timeout).toBe(functionTimeoutSeconds(name));
  });

  test.each([...httpFamilies])('%s answers within API Gateway\'s 30 s with 512 MB', (family) => {
    expect(functionProperties(synthesized, family)).toMatchObject({ MemorySize: 512, Timeout: 29 });
  });

  test('a family that needs only the table knows only the table, the runtime, the API root, the key\'s secret and its metrics names', () => {
    expect(Object.keys(needsOf('custom-fields'))).toEqual(['table']);
    expect(functionProperties(synthesized, 'custom-fields').Environment.Variables).toEqual({
      TOKEN_SIGNING_KEY_SECRET_ARN: resolve(synthesized.stack.platform.tokenSigningKey.secretArn),
      TABLE_NAME: resolve(synthesized.stack.table.tableName),
      APP_RUNTIME: 'aws',
      // Links the functions build lead to the public links' REST API, below its stage.
      PUBLIC_BASE_URL: { 'Fn::Join': ['', ['https://', resolve(synthesized.stack.publicLinks.api.restApiId), '.execute-api.', { Ref: 'AWS::Region' }, '.', { Ref: 'AWS::URLSuffix' }, '/links/api/']] },
      POWERTOOLS_SERVICE_NAME: 'email-campaign-dev',
      POWERTOOLS_METRICS_NAMESPACE: 'EmailCampaign',
      NODE_OPTIONS: '--enable-source-maps',
    });
  });

  test('each function logs to its own log group kept for 30 days; each API has one for access logs', () => {
    const { template } = synthesized;
    // Plus the log group of the verification template's custom resource (infra/stack/verification-template.ts).
    template.resourceCountIs('AWS::Logs::LogGroup', allFunctions.length + 3);
    template.allResourcesProperties('AWS::Logs::LogGroup', { RetentionInDays: 30 });
    const used = allFunctions.map((name) => (functionProperties(synthesized, name).LoggingConfig.LogGroup as { Ref: string }).Ref);
    expect(new Set(used).size).toBe(allFunctions.length);
  });

  test.each(allFunctions)('%s has its own role with no managed policy, writing only to its own log group', (name) => {
    const roleRef = resolve(synthesized.stack.functions.functionOf(name).role?.roleName) as { Ref: string };
    const roleResource = synthesized.template.toJSON().Resources[roleRef.Ref] as { Properties: Record<string, unknown> };
    expect(roleResource.Properties.ManagedPolicyArns).toBeUndefined();
    const logStatements = statementsFor(synthesized, name, 'logs:');
    expect(logStatements).toHaveLength(1);
    const logGroupRef = (functionProperties(synthesized, name).LoggingConfig.LogGroup as { Ref: string }).Ref;
    expect(logStatements[0]?.Resource).toEqual({ 'Fn::GetAtt': [logGroupRef, 'Arn'] });
  });

  test.each(allFunctions)('%s uses the DynamoDB item actions its needs name on the table by name, Query only on its indexes, never Scan', (name) => {
    const tableArn = resolve(synthesized.stack.table.tableArn);
    const { table = [], indexes = [] } = needsOf(name);
    const granted = statementsFor(synthesized, name, 'dynamodb:').map((statement) => ({ actions: [...actionsOf(statement)].sort(), resource: statement.Resource }));
    const expected = [
      ...(table.length > 0 ? [{ actions: table.map((action) => `dynamodb:${action}`).sort(), resource: tableArn }] : []),
      ...(indexes.length > 0 ? [{ actions: ['dynamodb:Query'], resource: indexes.length === 1 ? indexIn(tableArn, indexes[0] as string) : indexes.map((index) => indexIn(tableArn, index)) }] : []),
    ];
    expect(granted).toEqual(expected);
    expect(table).not.toContain('Scan');
  });

  test('only the functions that read or write items get the table, and the fallback gets nothing', () => {
    expect(allFunctions.filter((name) => (needsOf(name).table ?? []).length === 0)).toEqual(['api-docs', 'fallback']);
    expect(statementsFor(synthesized, 'fallback', 'dynamodb:')).toEqual([]);
    // Unauthenticated, reached from mail: it writes one recipient's items at a time, never in batches.
    expect(needsOf('public-pages').table).not.toContain('BatchWriteItem');
  });

  test.each(allFunctions)('%s has no wildcard resource except for X-Ray, which has no resource-level permissions', (name) => {
    // Nor have SES's DeleteSuppressedDestination, granted to the suppressions function (checked below),
    // and ListEmailIdentities, granted to identity-refresh to count the region's identities.
    const unscoped = (action: string) =>
      action.startsWith('xray:') ||
      (needsOf(name).suppressionList === true && action === 'ses:DeleteSuppressedDestination') ||
      (needsOf(name).identityCount === true && action === 'ses:ListEmailIdentities');
    // A Deny on '*' narrows a grant, never widens it (ses-from-deny.test.ts).
    for (const statement of policyStatementsOf(synthesized, name)) {
      if (statement.Resource !== '*' || statement.Effect === 'Deny') continue;
      expect(actionsOf(statement).every(unscoped)).toBe(true);
    }
  });

  test('only the suppressions function may clear SES\'s account-level suppression list', () => {
    expect(withNeed('suppressionList')).toEqual(['suppressions']);
    for (const name of allFunctions) {
      const granted = policyStatementsOf(synthesized, name).flatMap((statement) => actionsOf(statement).filter((action) => action === 'ses:DeleteSuppressedDestination'));
      expect({ name, granted }).toEqual({ name, granted: name === 'suppressions' ? ['ses:DeleteSuppressedDestination'] : [] });
    }
  });

  test("only the functions that send mail may: the accounts' own mail from any identity of this account and region, system mail from the sender identity", () => {
    const { platform } = synthesized.stack;
    expect(withNeed('mail')).toEqual(expect.arrayContaining(['send-deliver', 'senders', 'send-dispatch']));
    // The accounts' own mail goes From their own addresses and domains, SES identities made at run time.
    expect(withNeed('accountMail')).toEqual(['test-mails', 'send-deliver', 'automation-steps', 'opt-in-mail']);
    const anyIdentity = resolve(Stack.of(synthesized.stack).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' }));
    for (const name of allFunctions) {
      const sending = grantsFor(synthesized, name, 'ses:Send')['ses:SendEmail'];
      const environment = functionProperties(synthesized, name).Environment.Variables;
      // SES v2 SendEmail with simple content; raw MIME content (ses:SendRawEmail) is never sent.
      expect({ name, raw: grantsFor(synthesized, name, 'ses:SendRaw') }).toEqual({ name, raw: {} });
      if (!needsOf(name).mail) {
        expect({ name, sending }).toEqual({ name, sending: undefined });
        expect(environment.SES_CONFIGURATION_SET).toBeUndefined();
        continue;
      }
      const identity = needsOf(name).accountMail ? anyIdentity : resolve(platform.senderIdentity.emailIdentityArn);
      // A function that sends under the accounts' SES tenants may send on them too.
      const tenantsToo = needsOf(name).tenants ? [resolve(tenantArns())] : [];
      const expected = [identity, resolve(platform.configurationSetArn), ...tenantsToo].map((resource) => JSON.stringify(resource)).sort();
      expect({ name, sending }).toEqual({ name, sending: expected });
      expect(environment.SES_CONFIGURATION_SET).toBe('email-campaign-dev');
    }
  });

  test('only the identity functions may manage SES identities, and only identities of this account and region', () => {
    expect(withNeed('identities')).toEqual(['senders', 'sender-domains', 'identity-refresh']);
    for (const name of allFunctions) {
      const statements = statementsFor(synthesized, name, 'ses:').filter((statement) => actionsOf(statement).some((action) => identityActions.includes(action)));
      if (!needsOf(name).identities) {
        expect({ name, statements }).toEqual({ name, statements: [] });
        continue;
      }
      // The identity calls on any identity; the custom verification mail on an identity and our template only.
      const identities = resolve(Stack.of(synthesized.stack).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' }));
      expect(statements).toHaveLength(2);
      const mailing = statements.find((statement) => actionsOf(statement).includes('ses:SendCustomVerificationEmail'));
      const managing = statements.find((statement) => statement !== mailing);
      expect(actionsOf(managing as never)).toEqual(identityActions.filter((action) => action !== 'ses:SendCustomVerificationEmail'));
      expect(resolve(managing?.Resource)).toEqual(identities);
      expect(actionsOf(mailing as never)).toEqual(['ses:SendCustomVerificationEmail']);
      const resources = resolve(mailing?.Resource) as unknown[];
      expect(resources).toHaveLength(2);
      expect(resources).toContainEqual(identities);
      expect(JSON.stringify(resources.find((resource) => JSON.stringify(resource) !== JSON.stringify(identities)))).toMatch(
        /:custom-verification-email-template\/email-campaign-dev-sender-verification"\]\]\}$/,
      );
    }
  });

  test('only the dispatcher and the automation runner make SES tenants; the watchdog only reads them, the deliverer, test mails and confirmation mails only send under them', () => {
    expect(allFunctions.filter((name) => needsOf(name).tenants === 'manage')).toEqual(['send-dispatch', 'automation-steps']);
    expect(allFunctions.filter((name) => needsOf(name).tenants === 'read')).toEqual(['send-watchdog']);
    expect(allFunctions.filter((name) => needsOf(name).tenants === 'send').sort()).toEqual(['opt-in-mail', 'send-deliver', 'test-mails']);
    const asJson = (...resources: unknown[]) => resources.map((resource) => JSON.stringify(resolve(resource))).sort();
    const tenants = asJson(tenantArns());
    const associable = asJson(tenantArns(), synthesized.stack.platform.configurationSetArn, Stack.of(synthesized.stack).formatArn({ service: 'ses', resource: 'identity', resourceName: '*' }));
    for (const name of allFunctions) {
      const grants = Object.fromEntries(Object.entries(grantsFor(synthesized, name, 'ses:')).filter(([action]) => tenantActions.includes(action)));
      const level = needsOf(name).tenants;
      // Sending under a tenant is SendEmail's grant (checked with the mail grants), no tenant action.
      const expected =
        level === 'manage'
          ? { 'ses:CreateTenant': tenants, 'ses:GetTenant': tenants, 'ses:CreateTenantResourceAssociation': associable }
          : level === 'read'
            ? { 'ses:GetTenant': tenants }
            : {};
      expect({ name, grants }).toEqual({ name, grants: expected });
    }
  });

  test('system mail comes from no-reply at the sender domain, for the functions that send it', () => {
    for (const name of allFunctions) {
      const expected = needsOf(name).systemMail ? 'no-reply@mail.example.org' : undefined;
      expect(functionProperties(synthesized, name).Environment.Variables.SYSTEM_FROM_EMAIL).toBe(expected);
    }
  });

  test('every function that signs reads the signing key by its ARN, from that one secret, and never holds the key itself', () => {
    const secretArn = resolve(synthesized.stack.platform.tokenSigningKey.secretArn);
    expect(allFunctions.filter((name) => needsOf(name).signingKey === false).sort()).toEqual(['send-watchdog', 'webhook-deliver']);
    for (const name of allFunctions) {
      const environment = functionProperties(synthesized, name).Environment.Variables;
      expect(environment.TOKEN_SIGNING_KEY).toBeUndefined();
      if (needsOf(name).signingKey === false) {
        expect(environment.TOKEN_SIGNING_KEY_SECRET_ARN).toBeUndefined();
        expect(grantsFor(synthesized, name, 'secretsmanager:')).toEqual(needsOf(name).webhookKey ? { 'secretsmanager:GetSecretValue': [JSON.stringify(resolve(synthesized.stack.platform.webhookSecretKey.secretArn))] } : {});
        continue;
      }
      expect(environment.TOKEN_SIGNING_KEY_SECRET_ARN).toEqual(secretArn);
      // Besides, the functions that seal or open webhook secrets read that key (test/infra/webhooks.test.ts).
      const webhookKeyArn = resolve(synthesized.stack.platform.webhookSecretKey.secretArn);
      const secrets = needsOf(name).webhookKey ? [secretArn, webhookKeyArn] : [secretArn];
      expect({ name, grants: grantsFor(synthesized, name, 'secretsmanager:') }).toEqual({ name, grants: { 'secretsmanager:GetSecretValue': secrets.map((arn) => JSON.stringify(arn)).sort() } });
    }
  });

  test('only the functions that schedule manage schedules, in the group only, and pass only the scheduler role', () => {
    const { platform, events } = synthesized.stack;
    expect(withNeed('schedules')).toEqual(expect.arrayContaining(['send-dispatch', 'single-sends']));
    expect(withNeed('schedules')).not.toEqual(expect.arrayContaining(['reference-data']));
    for (const name of allFunctions) {
      const scheduler = statementsFor(synthesized, name, 'scheduler:');
      const passRole = statementsFor(synthesized, name, 'iam:');
      const environment = functionProperties(synthesized, name).Environment.Variables;
      if (!needsOf(name).schedules) {
        expect([...scheduler, ...passRole]).toEqual([]);
        expect(environment.SCHEDULER_ROLE_ARN).toBeUndefined();
        expect(environment.SCHEDULE_DEAD_LETTER_ARN).toBeUndefined();
        continue;
      }
      expect(scheduler).toHaveLength(1);
      const cancels = needsOf(name).cancelsSchedules ? ['scheduler:DeleteSchedule'] : [];
      expect({ name, actions: [...actionsOf(scheduler[0] as never)].sort() }).toEqual({ name, actions: ['scheduler:CreateSchedule', ...cancels, 'scheduler:UpdateSchedule'] });
      expect(JSON.stringify(scheduler[0]?.Resource)).toContain(':schedule/email-campaign-dev/*');
      expect(passRole).toEqual([
        expect.objectContaining({
          Action: 'iam:PassRole',
          Resource: resolve(platform.schedulerRole.roleArn),
          Condition: { StringEquals: { 'iam:PassedToService': 'scheduler.amazonaws.com' } },
        }),
      ]);
      expect(environment).toMatchObject({
        SCHEDULE_GROUP_NAME: 'email-campaign-dev',
        SCHEDULER_ROLE_ARN: resolve(platform.schedulerRole.roleArn),
        // Each one-time schedule it creates names the scheduled-runs dead-letter queue.
        SCHEDULE_DEAD_LETTER_ARN: resolve(events.scheduledRunDeadLetters.queueArn),
      });
      expect(JSON.stringify(environment.SCHEDULE_TARGET_ARN_SEND_DISPATCH)).toContain(':function:email-campaign-dev-send-dispatch');
    }
  });

  test('only a function that starts jobs at once invokes functions, and only those targets: the single sends\' dispatcher', () => {
    for (const name of allFunctions) {
      const invokes = statementsFor(synthesized, name, 'lambda:');
      const targets = needsOf(name).startsNow ?? [];
      if (targets.length === 0) {
        expect({ name, invokes }).toEqual({ name, invokes: [] });
        continue;
      }
      expect(invokes).toHaveLength(1);
      expect(actionsOf(invokes[0] as never)).toEqual(['lambda:InvokeFunction']);
      const resources = JSON.stringify(invokes[0]?.Resource);
      for (const target of targets) expect(resources).toContain(`:function:email-campaign-dev-${target}`);
      expect(resources.match(/:function:/g)).toHaveLength(targets.length);
    }
    expect(allFunctions.filter((name) => (needsOf(name).startsNow ?? []).length > 0)).toEqual(['single-sends']);
    // It reads each target's ARN from the variables a function that schedules is given.
    for (const name of allFunctions) if ((needsOf(name).startsNow ?? []).length > 0) expect({ name, schedules: needsOf(name).schedules }).toEqual({ name, schedules: true });
    expect(needsOf('single-sends').startsNow).toEqual(['send-dispatch']);
  });

  test('only the producers may send to the delivery queue, and they know its URL', () => {
    const { queue } = synthesized.stack.platform.queueOf('deliveries');
    const producers = allFunctions.filter((name) => (functionNeeds[name]?.enqueue ?? []).includes('deliveries'));
    // single-sends re-queues the batches a reputation pause parked, when the send is resumed.
    expect(producers.sort()).toEqual(['send-deliver', 'send-dispatch', 'single-sends']);
    for (const name of allFunctions) {
      // CDK merges a function's SendMessage grants into one statement listing each queue.
      const target = JSON.stringify(resolve(queue.queueArn));
      const sends = statementsFor(synthesized, name, 'sqs:SendMessage').filter((statement) =>
        [statement.Resource].flat().some((resource) => JSON.stringify(resource) === target),
      );
      const environment = functionProperties(synthesized, name).Environment.Variables;
      expect(sends).toHaveLength(producers.includes(name) ? 1 : 0);
      expect(environment.QUEUE_URL_DELIVERIES).toEqual(producers.includes(name) ? resolve(queue.queueUrl) : undefined);
    }
  });
});
