// What IAM is asked when each recorded call is made deployed: the SDK operation's IAM action(s) on the
// concrete resource ARN(s), made by the function's role; and the requests AWS services make for the
// stack (the scheduler role invoking targets and writing to its dead-letter queue, EventBridge and
// API Gateway invoking functions, Lambda polling queues and writing logs, traces and failure records).
import { queueUrlEnvName, type QueueName } from '../../shared/queue/queues';
import { scheduleDeadLetterArnEnvName, scheduleTargetArnEnvName } from '../../shared/scheduling/aws-scheduler';
import type { EventTarget } from '../../shared/scheduling/scheduled-job';
import { tokenSigningKeySecretArnEnvName, webhookSecretKeySecretArnEnvName } from '../../shared/secrets';
import type { CountedCall, TableTarget } from '../support/aws-calls/recorded-call';
import type { DeployedFunction, DeployedStack } from './deployed-stack';
import { account, region } from './template-values';

export type Principal = { kind: 'role'; roleId: string; name: string } | { kind: 'service'; service: string };

export interface IamRequest {
  principal: Principal;
  action: string;
  resource: string;
  context: Record<string, string | string[]>;
  /** What makes the request: the recorded call and a test file that made it, or the stack wiring. */
  cause: string;
}

/** A call the check cannot turn into requests: the deployed function could not even make it. */
export class UnmappedCall extends Error {}

const ses = (resource: string) => `arn:aws:ses:${region}:${account}:${resource}`;

/** The parent domains of a domain that can be SES identities (two labels at least), nearest first. */
function domainsAbove(domain: string): string[] {
  const labels = domain.split('.');
  return labels.slice(0, -1).map((_label, index) => labels.slice(index).join('.'));
}

/**
 * The identities SES may authorize a mail From `address` on. SES authorizes SendEmail on the identity
 * that verifies the From address: the address's own identity, or the verified domain identity that
 * covers it. When the stack itself made one of those (its sender domain, for system mail), that one
 * covers the address (the service makes no address identities under its own domain). Otherwise the
 * identity is a customer's, made at run time, and may be the address or any domain above it: the mail
 * must be allowed on each.
 */
export function identitiesAuthorizing(address: string, stackIdentities: Set<string>): string[] {
  const domain = address.split('@')[1] ?? '';
  const candidates = [address, ...domainsAbove(domain)];
  const owned = candidates.find((candidate) => stackIdentities.has(candidate));
  return owned ? [owned] : candidates;
}

function env(fn: DeployedFunction, name: string, call: CountedCall): string {
  const value = fn.environment[name];
  if (!value) throw new UnmappedCall(`${fn.name} makes ${call.service} ${call.operation} (${call.file}) but its deployed environment has no ${name}`);
  return value;
}

/** DynamoDB: each operation's item action on the table (or index); a transaction's per item kind. */
function tableRequests(stack: DeployedStack, call: CountedCall): [string, string][] {
  const table = stack.tableArn();
  const target = call.input as TableTarget;
  const itemActions: Record<string, string> = { Put: 'PutItem', Update: 'UpdateItem', Delete: 'DeleteItem', ConditionCheck: 'ConditionCheckItem', Get: 'GetItem' };
  switch (call.operation) {
    case 'GetItem':
    case 'PutItem':
    case 'UpdateItem':
    case 'DeleteItem':
    case 'Query':
    case 'Scan':
      return [[`dynamodb:${call.operation}`, target.IndexName ? `${table}/index/${target.IndexName}` : table]];
    case 'BatchGetItem':
    case 'BatchWriteItem':
      return (target.RequestItems ?? []).map(() => [`dynamodb:${call.operation}`, table]);
    case 'TransactWriteItems':
    case 'TransactGetItems':
      return (target.TransactItems ?? []).map((item) => {
        const action = itemActions[item.kind];
        if (!action) throw new UnmappedCall(`${call.functionName} ${call.operation} holds an item of kind ${item.kind}: map it in ${__filename}`);
        return [`dynamodb:${action}`, table];
      });
    default:
      throw new UnmappedCall(`${call.functionName} makes DynamoDB ${call.operation} (${call.file}): map it to its IAM action in ${__filename}`);
  }
}

/** An SES ARN the local runtime built (its region, account 000000000000), as deployed. */
function deployedSesArn(fn: DeployedFunction, arn: string, call: CountedCall): string {
  const match = /^arn:aws:ses:[^:]*:\d+:([a-z-]+)\/(.+)$/.exec(arn);
  if (!match) throw new UnmappedCall(`${fn.name} ${call.operation} names ${arn}, not an SES ARN`);
  const [, type, name] = match;
  return ses(`${type}/${type === 'configuration-set' ? env(fn, 'SES_CONFIGURATION_SET', call) : name}`);
}

const tenantArn = (name: string) => ses(`tenant/${name}/tn-0123456789abcdef`);

/** SES v2: the identity, configuration set, template and tenant resources each operation is authorized on. */
function sesRequests(stack: DeployedStack, fn: DeployedFunction, call: CountedCall): { action: string; resource: string; context?: Record<string, string> }[] {
  const input = call.input as Record<string, string | { system: true } | undefined>;
  const text = (field: string) => String(input[field]);
  switch (call.operation) {
    case 'SendEmail': {
      const from = typeof input.FromEmailAddress === 'object' ? env(fn, 'SYSTEM_FROM_EMAIL', call).toLowerCase() : text('FromEmailAddress');
      const context: Record<string, string> = { 'ses:FromAddress': from, 'ses:ApiVersion': '2', ...(input.TenantName ? { 'ses:TenantName': text('TenantName') } : {}) };
      const requests = identitiesAuthorizing(from, stack.sesIdentities()).map((identity) => ({ action: 'ses:SendEmail', resource: ses(`identity/${identity}`), context }));
      // Deployed, the accounts' mail names the configuration set (the locally recorded call may not).
      if (input.ConfigurationSetName || fn.environment.SES_CONFIGURATION_SET) {
        requests.push({ action: 'ses:SendEmail', resource: ses(`configuration-set/${env(fn, 'SES_CONFIGURATION_SET', call)}`), context });
      }
      return requests;
    }
    case 'CreateEmailIdentity':
    case 'GetEmailIdentity':
    case 'DeleteEmailIdentity':
      return [{ action: `ses:${call.operation}`, resource: ses(`identity/${text('EmailIdentity').toLowerCase()}`) }];
    case 'SendCustomVerificationEmail':
      return [
        { action: 'ses:SendCustomVerificationEmail', resource: ses(`identity/${text('EmailAddress').toLowerCase()}`) },
        { action: 'ses:SendCustomVerificationEmail', resource: ses(`custom-verification-email-template/${env(fn, 'SENDER_VERIFICATION_TEMPLATE', call)}`) },
      ];
    case 'CreateTenant':
    case 'GetTenant':
      return [{ action: `ses:${call.operation}`, resource: tenantArn(text('TenantName')) }];
    case 'CreateTenantResourceAssociation':
      return [
        { action: 'ses:CreateTenantResourceAssociation', resource: tenantArn(text('TenantName')) },
        { action: 'ses:CreateTenantResourceAssociation', resource: deployedSesArn(fn, text('ResourceArn'), call) },
      ];
    case 'DeleteSuppressedDestination':
    case 'ListEmailIdentities':
      return [{ action: `ses:${call.operation}`, resource: '*' }];
    default:
      throw new UnmappedCall(`${fn.name} makes SES ${call.operation} (${call.file}): map it to its IAM action and resources in ${__filename}`);
  }
}

/** The requests of one recorded call, made by its function's role. */
export function requestsOfCall(stack: DeployedStack, call: CountedCall): IamRequest[] {
  const fn = stack.functions.get(call.functionName);
  if (!fn) throw new UnmappedCall(`${call.functionName} made ${call.service} ${call.operation} (${call.file}) but the stack has no such function`);
  const principal: Principal = { kind: 'role', roleId: fn.roleId, name: fn.name };
  const cause = `${call.service} ${call.operation} (${call.file})`;
  const request = (action: string, resource: string, context: Record<string, string> = {}): IamRequest => ({ principal, action, resource, context, cause });
  const input = call.input as Record<string, string>;
  switch (call.service) {
    case 'dynamodb':
      return tableRequests(stack, call).map(([action, resource]) => request(action, resource));
    case 'sesv2':
      return sesRequests(stack, fn, call).map(({ action, resource, context }) => request(action, resource, context));
    case 'sqs': {
      const queue = stack.queueArnOfUrl(env(fn, queueUrlEnvName(input.Queue as QueueName), call));
      if (call.operation === 'SendMessageBatch' || call.operation === 'SendMessage') return [request('sqs:SendMessage', queue)];
      if (call.operation === 'ChangeMessageVisibility') return [request('sqs:ChangeMessageVisibility', queue)];
      throw new UnmappedCall(`${fn.name} makes SQS ${call.operation} (${call.file}): map it in ${__filename}`);
    }
    case 'scheduler': {
      const schedule = `arn:aws:scheduler:${region}:${account}:schedule/${env(fn, 'SCHEDULE_GROUP_NAME', call)}/${input.Name}`;
      if (call.operation === 'DeleteSchedule') return [request('scheduler:DeleteSchedule', schedule)];
      if (call.operation !== 'CreateSchedule' && call.operation !== 'UpdateSchedule') throw new UnmappedCall(`${fn.name} makes Scheduler ${call.operation}: map it in ${__filename}`);
      // The schedule names its target, the role the scheduler invokes it as, and its dead-letter queue.
      env(fn, scheduleTargetArnEnvName(input.Target as EventTarget), call);
      env(fn, scheduleDeadLetterArnEnvName, call);
      return [
        request(`scheduler:${call.operation}`, schedule),
        request('iam:PassRole', env(fn, 'SCHEDULER_ROLE_ARN', call), { 'iam:PassedToService': 'scheduler.amazonaws.com' }),
      ];
    }
    case 'lambda': {
      // A job started at once (shared/scheduling/start-now.ts): its target invoked by the function itself, by the ARN the scheduler's adapter reads too.
      if (call.operation !== 'Invoke') throw new UnmappedCall(`${fn.name} makes Lambda ${call.operation} (${call.file}): map it in ${__filename}`);
      return [request('lambda:InvokeFunction', env(fn, scheduleTargetArnEnvName(input.Target as EventTarget), call))];
    }
    case 's3': {
      // The local bucket stands in for the archive the function is told of (SES_EVENT_BUCKET), read by key.
      if (call.operation !== 'GetObject') throw new UnmappedCall(`${fn.name} makes S3 ${call.operation} (${call.file}): map it in ${__filename}`);
      return [request('s3:GetObject', `arn:aws:s3:::${env(fn, 'SES_EVENT_BUCKET', call)}/${input.Key}`)];
    }
    case 'secretsmanager': {
      // The local keys stand in for the secrets by name (shared/config.ts): each is read through the ARN its variable holds.
      const arnVariable = input.SecretId === 'webhook-secret-key' ? webhookSecretKeySecretArnEnvName : tokenSigningKeySecretArnEnvName;
      return [request('secretsmanager:GetSecretValue', env(fn, arnVariable, call))];
    }
  }
}

/** What the scheduler does for a schedule: assume its role (as the group's schedules), invoke the target, park what fails. */
function scheduleRequests(stack: DeployedStack, groupName: string, target: string, roleArn: string, deadLetterArn: string | undefined, cause: string): IamRequest[] {
  const roleId = stack.roleIdOfArn(roleArn);
  const principal: Principal = { kind: 'role', roleId, name: `scheduler role ${roleId}` };
  const groupArn = `arn:aws:scheduler:${region}:${account}:schedule-group/${groupName}`;
  const trusted = { 'aws:SourceAccount': account, 'aws:SourceArn': groupArn };
  return [
    { principal: { kind: 'service', service: 'scheduler.amazonaws.com' }, action: 'sts:AssumeRole', resource: roleArn, context: trusted, cause },
    { principal, action: 'lambda:InvokeFunction', resource: target, context: {}, cause },
    ...(deadLetterArn ? [{ principal, action: 'sqs:SendMessage', resource: deadLetterArn, context: {}, cause }] : []),
  ];
}

/** The requests AWS services make for the stack, and those of the recorded schedules. */
export function serviceRequests(stack: DeployedStack, calls: CountedCall[]): IamRequest[] {
  const requests: IamRequest[] = [];
  // Schedules the functions create at run time, as recorded: one per (function, target).
  const scheduled = new Set<string>();
  for (const call of calls) {
    if (call.service !== 'scheduler' || call.operation !== 'CreateSchedule') continue;
    const fn = stack.functions.get(call.functionName);
    const target = fn?.environment[scheduleTargetArnEnvName(call.input.Target as EventTarget)];
    if (!fn || !target || scheduled.has(`${fn.name} ${target}`)) continue;
    scheduled.add(`${fn.name} ${target}`);
    const { SCHEDULE_GROUP_NAME: group, SCHEDULER_ROLE_ARN: role } = fn.environment;
    if (group && role) requests.push(...scheduleRequests(stack, group, target, role, fn.environment[scheduleDeadLetterArnEnvName], `a schedule ${fn.name} creates for ${String(call.input.Target)}`));
  }
  // The recurring schedules of the template.
  for (const { id, properties } of stack.resourcesOf('AWS::Scheduler::Schedule')) {
    const target = properties.Target as { Arn: string; RoleArn: string; DeadLetterConfig?: { Arn: string } };
    requests.push(...scheduleRequests(stack, String(properties.GroupName), target.Arn, target.RoleArn, target.DeadLetterConfig?.Arn, `schedule ${id}`));
  }
  // EventBridge rules: invoke their function targets or send to their queue targets, send what fails to their dead-letter queues.
  for (const { id, properties } of stack.resourcesOf('AWS::Events::Rule')) {
    const ruleArn = stack.values.getAtt(id, 'Arn');
    const context = { 'aws:SourceArn': ruleArn, 'aws:SourceAccount': account };
    const events: Principal = { kind: 'service', service: 'events.amazonaws.com' };
    for (const target of properties.Targets as { Arn: string; RoleArn?: string; DeadLetterConfig?: { Arn: string } }[]) {
      if (target.RoleArn) {
        // A target EventBridge reaches as a role (a delivery stream): it assumes the role, which puts the records.
        if (!target.Arn.startsWith('arn:aws:firehose:')) throw new Error(`Rule ${id} targets ${target.Arn} with a role: teach ${__filename} to check it`);
        const roleId = stack.roleIdOfArn(target.RoleArn);
        requests.push({ principal: events, action: 'sts:AssumeRole', resource: target.RoleArn, context: { 'aws:SourceAccount': account }, cause: `rule ${id}` });
        for (const action of ['firehose:PutRecord', 'firehose:PutRecordBatch']) requests.push({ principal: { kind: 'role', roleId, name: `rule ${id}'s role` }, action, resource: target.Arn, context: {}, cause: `rule ${id}` });
      } else {
        const action = target.Arn.startsWith('arn:aws:sqs:') ? 'sqs:SendMessage' : 'lambda:InvokeFunction';
        requests.push({ principal: events, action, resource: target.Arn, context, cause: `rule ${id}` });
      }
      if (target.DeadLetterConfig) requests.push({ principal: events, action: 'sqs:SendMessage', resource: target.DeadLetterConfig.Arn, context, cause: `rule ${id}'s dead-letter queue` });
    }
  }
  // Firehose, as each delivery stream's role, writes an object under the stream's prefix (named by the UTC hour).
  for (const { id, properties } of stack.resourcesOf('AWS::KinesisFirehose::DeliveryStream')) {
    const destination = properties.ExtendedS3DestinationConfiguration as { RoleARN: string; BucketARN: string; Prefix?: string } | undefined;
    if (!destination) throw new Error(`Delivery stream ${id} has no S3 destination: teach ${__filename} its requests`);
    const roleId = stack.roleIdOfArn(destination.RoleARN);
    const principal: Principal = { kind: 'role', roleId, name: `delivery stream ${id}'s role` };
    const object = `${destination.BucketARN}/${destination.Prefix ?? ''}2026/01/01/00/stream-1-2026-01-01-00-00-00-0123`;
    requests.push(
      { principal: { kind: 'service', service: 'firehose.amazonaws.com' }, action: 'sts:AssumeRole', resource: destination.RoleARN, context: { 'aws:SourceAccount': account }, cause: `delivery stream ${id}` },
      ...['s3:PutObject', 's3:AbortMultipartUpload'].map((action) => ({ principal, action, resource: object, context: {}, cause: `delivery stream ${id}` })),
      ...['s3:GetBucketLocation', 's3:ListBucketMultipartUploads'].map((action) => ({ principal, action, resource: destination.BucketARN, context: {}, cause: `delivery stream ${id}` })),
    );
  }
  // API Gateway invokes each route's function.
  const integrations = new Map(stack.resourcesOf('AWS::ApiGatewayV2::Integration').map(({ id, properties }) => [id, String(properties.IntegrationUri)]));
  for (const { properties } of stack.resourcesOf('AWS::ApiGatewayV2::Route')) {
    const integration = /^integrations\/int-(.+)$/.exec(String(properties.Target ?? ''))?.[1];
    const functionArn = integration ? integrations.get(integration) : undefined;
    if (!functionArn) continue;
    const [method, path] = String(properties.RouteKey).split(' ');
    const sourceArn = `arn:aws:execute-api:${region}:${account}:${String(properties.ApiId)}/$default/${method === 'ANY' ? 'GET' : method}${path}`;
    requests.push({
      principal: { kind: 'service', service: 'apigateway.amazonaws.com' },
      action: 'lambda:InvokeFunction',
      resource: functionArn,
      context: { 'aws:SourceArn': sourceArn, 'aws:SourceAccount': account },
      cause: `route ${String(properties.RouteKey)}`,
    });
  }
  // The same for the routes an API defines in its OpenAPI body (infra/stack/http-routes.ts): each
  // operation's integration names its function through a variable of the API's stage.
  requests.push(...bodyRouteRequests(stack));
  // Lambda, as each function's role: its logs and traces, the queues it is fed from, where its failures go.
  const roleOfFunction = new Map([...stack.functions.values()].map((fn) => [fn.functionArn, fn]));
  const asRole = (fn: DeployedFunction, action: string, resource: string, cause: string): IamRequest => ({ principal: { kind: 'role', roleId: fn.roleId, name: fn.name }, action, resource, context: {}, cause });
  for (const fn of stack.functions.values()) {
    const logicalId = stack.values.idsOf('AWS::Lambda::Function').find((id) => stack.values.getAtt(id, 'Arn') === fn.functionArn) as string;
    const properties = stack.values.resolve(stack.values.resource(logicalId).Properties) as { LoggingConfig?: { LogGroup?: string }; TracingConfig?: { Mode?: string } };
    const logGroup = properties.LoggingConfig?.LogGroup ?? `/aws/lambda/${stack.values.ref(logicalId)}`;
    const stream = `arn:aws:logs:${region}:${account}:log-group:${logGroup}:log-stream:2026/01/01/[$LATEST]0123456789abcdef`;
    requests.push(asRole(fn, 'logs:CreateLogStream', stream, 'Lambda logging'), asRole(fn, 'logs:PutLogEvents', stream, 'Lambda logging'));
    if (properties.TracingConfig?.Mode === 'Active') requests.push(asRole(fn, 'xray:PutTraceSegments', '*', 'active tracing'), asRole(fn, 'xray:PutTelemetryRecords', '*', 'active tracing'));
    // Every function given a key's ARN reads the secret before its first invocation's work (shared/secrets.ts).
    for (const variable of [tokenSigningKeySecretArnEnvName, webhookSecretKeySecretArnEnvName]) {
      const secret = fn.environment[variable];
      if (secret) requests.push(asRole(fn, 'secretsmanager:GetSecretValue', secret, 'secrets loaded at invocation'));
    }
  }
  for (const { id, properties } of stack.resourcesOf('AWS::Lambda::EventSourceMapping')) {
    const fn = roleOfFunction.get(`arn:aws:lambda:${region}:${account}:function:${String(properties.FunctionName)}`) ?? roleOfFunction.get(String(properties.FunctionName));
    if (!fn) throw new Error(`Event source ${id} feeds ${String(properties.FunctionName)}, which is not a function of the stack`);
    for (const action of ['sqs:ReceiveMessage', 'sqs:DeleteMessage', 'sqs:GetQueueAttributes', 'sqs:ChangeMessageVisibility']) requests.push(asRole(fn, action, String(properties.EventSourceArn), `event source ${id}`));
  }
  for (const { id, properties } of stack.resourcesOf('AWS::Lambda::EventInvokeConfig')) {
    const fn = roleOfFunction.get(`arn:aws:lambda:${region}:${account}:function:${String(properties.FunctionName)}`) ?? roleOfFunction.get(String(properties.FunctionName));
    const destination = (properties.DestinationConfig as { OnFailure?: { Destination: string } } | undefined)?.OnFailure?.Destination;
    if (!fn) throw new Error(`${id} configures ${String(properties.FunctionName)}, which is not a function of the stack`);
    if (destination) requests.push(asRole(fn, 'sqs:SendMessage', destination, `failure destination ${id}`));
  }
  return requests;
}

interface BodyIntegration {
  uri: string;
}

type BodyOperation = { 'x-amazon-apigateway-integration'?: { $ref?: string; uri?: string } };
type ApiBody = { paths?: Record<string, Record<string, BodyOperation>>; components?: Record<string, Record<string, BodyIntegration>> };

/**
 * API Gateway invoking the function of each route an API's OpenAPI body defines, as its stage resolves
 * it: HTTP APIs (integrations shared under components) and REST APIs (each operation its own).
 */
function bodyRouteRequests(stack: DeployedStack): IamRequest[] {
  const apis = [
    ...stack.resourcesOf('AWS::ApiGatewayV2::Api').map(({ id, properties }) => {
      const stage = stack.resourcesOf('AWS::ApiGatewayV2::Stage').find((candidate) => candidate.properties.ApiId === stack.values.ref(id));
      return { id, body: properties.Body as ApiBody | undefined, stageName: stage?.properties.StageName, variables: stage?.properties.StageVariables };
    }),
    ...stack.resourcesOf('AWS::ApiGateway::RestApi').map(({ id, properties }) => {
      const stage = stack.resourcesOf('AWS::ApiGateway::Stage').find((candidate) => candidate.properties.RestApiId === stack.values.ref(id));
      return { id, body: properties.Body as ApiBody | undefined, stageName: stage?.properties.StageName, variables: stage?.properties.Variables };
    }),
  ];
  const requests: IamRequest[] = [];
  for (const { id, body, stageName, variables } of apis) {
    if (!body?.paths) continue;
    if (stageName === undefined) throw new Error(`API ${id} has routes in its body but no stage`);
    const apiId = stack.values.ref(id);
    const stageVariables = (variables ?? {}) as Record<string, string>;
    const integrations = body.components?.['x-amazon-apigateway-integrations'] ?? {};
    for (const [path, operations] of Object.entries(body.paths)) {
      for (const [method, operation] of Object.entries(operations)) {
        const integration = operation['x-amazon-apigateway-integration'];
        const name = /^#\/components\/x-amazon-apigateway-integrations\/(.+)$/.exec(integration?.$ref ?? '')?.[1];
        const uri = name ? integrations[name]?.uri : integration?.uri;
        if (!uri) throw new Error(`${method.toUpperCase()} ${path} of API ${id} has no integration`);
        const functionArn = /functions\/(.+)\/invocations$/.exec(uri.replace(/\$\{stageVariables\.([A-Za-z0-9_]+)\}/g, (_, variable: string) => stageVariables[variable] ?? `<unset ${variable}>`))?.[1];
        if (!functionArn) throw new Error(`The integration of ${method.toUpperCase()} ${path} of API ${id} invokes no Lambda function: ${uri}`);
        const verb = method === 'x-amazon-apigateway-any-method' ? 'GET' : method.toUpperCase();
        requests.push({
          principal: { kind: 'service', service: 'apigateway.amazonaws.com' },
          action: 'lambda:InvokeFunction',
          resource: functionArn,
          context: { 'aws:SourceArn': `arn:aws:execute-api:${region}:${account}:${apiId}/${String(stageName)}/${verb}${path}`, 'aws:SourceAccount': account },
          cause: `route ${verb} ${path} of ${id}`,
        });
      }
    }
  }
  return requests;
}
