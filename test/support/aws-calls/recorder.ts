// Records every AWS call a function's handler makes while the integration and e2e tests run (with
// AWS_CALLS_DIR set): SDK middleware on each client the shared code builds, and the reports of the
// local stand-ins of SQS, Scheduler, SES identities and tenants, S3 objects, and the signing key's secret. Each
// test file appends its distinct calls, counted, to a file of its jest worker under AWS_CALLS_DIR
// when it ends (recording-environment.js);
// test/iam/check-recorded-calls.ts checks them against the stack's IAM policies.
import { appendFileSync, mkdirSync } from 'node:fs';
import { join, relative } from 'node:path';
import type { MiddlewareStack } from '@smithy/types';
import { watchAwsCalls, type AwsCallWatcher, type StoodInCall } from '../../../shared/aws-call-watch';
import { config } from '../../../shared/config';
import { currentInvocation, runAs } from './attribution';
import { addressOf, callKey, type AwsService, type CountedCall, type RecordedCall, type TableTarget } from './recorded-call';

const services: Record<string, AwsService> = {
  DynamoDBClient: 'dynamodb',
  SESv2Client: 'sesv2',
  SQSClient: 'sqs',
  SchedulerClient: 'scheduler',
  LambdaClient: 'lambda',
  SecretsManagerClient: 'secretsmanager',
  S3Client: 's3',
};

type Input = Record<string, unknown>;

/** The tables (and index) a DynamoDB call names; the item kinds of a transaction. */
function tableTarget(input: Input): TableTarget {
  const target: TableTarget = {};
  if (typeof input.TableName === 'string') target.TableName = input.TableName;
  if (typeof input.IndexName === 'string') target.IndexName = input.IndexName;
  if (input.RequestItems && typeof input.RequestItems === 'object') target.RequestItems = Object.keys(input.RequestItems).sort();
  if (Array.isArray(input.TransactItems)) {
    target.TransactItems = (input.TransactItems as Record<string, { TableName?: string }>[]).map((item) => {
      const [kind, body] = Object.entries(item)[0] ?? ['', {}];
      return { kind, TableName: String(body?.TableName) };
    });
  }
  return target;
}

/** The fields of an SES v2 input that name resources or carry IAM condition keys. */
function sesTarget(input: Input): Input {
  const target: Input = {};
  for (const field of ['EmailIdentity', 'EmailAddress', 'TemplateName', 'TenantName', 'ResourceArn', 'ConfigurationSetName'] as const) {
    if (typeof input[field] === 'string') target[field] = input[field];
  }
  if (typeof input.FromEmailAddress === 'string') {
    const from = addressOf(input.FromEmailAddress);
    // The service's own From address is the stack's setting, not a name the tests chose: the check reads it from the template.
    target.FromEmailAddress = from === addressOf(config().systemFromEmail) ? { system: true } : from;
  }
  return target;
}

/** The part of an SDK input the IAM check needs: what the call acts on. */
function targetOf(service: AwsService, input: Input): Input {
  switch (service) {
    case 'dynamodb':
      return tableTarget(input) as Input;
    case 'sesv2':
      return sesTarget(input);
    case 'sqs':
      return { QueueUrl: input.QueueUrl };
    case 'scheduler':
      return { Name: input.Name, GroupName: input.GroupName };
    case 'lambda':
      return { FunctionName: input.FunctionName, InvocationType: input.InvocationType };
    case 'secretsmanager':
      return { SecretId: input.SecretId };
    case 's3':
      return { Bucket: input.Bucket, Key: input.Key };
  }
}

class CallRecorder implements AwsCallWatcher {
  private readonly calls = new Map<string, CountedCall>();
  unattributed = 0;
  private readonly clients = new WeakSet<object>();

  constructor(private readonly file: string) {}

  record(call: RecordedCall): void {
    const key = callKey(call);
    const counted = this.calls.get(key);
    if (counted) counted.count++;
    else this.calls.set(key, { ...call, count: 1, file: this.file });
  }

  clientBuilt(client: object): void {
    if (this.clients.has(client)) return;
    this.clients.add(client);
    const stack = (client as { middlewareStack: MiddlewareStack<object, object> }).middlewareStack;
    stack.add(
      (next, context) => async (args) => {
        const { clientName = '', commandName = '' } = context as { clientName?: string; commandName?: string };
        const invocation = currentInvocation();
        const service = services[clientName];
        if (!invocation) this.unattributed++;
        else if (!invocation.standIn) {
          if (!service) throw new Error(`A call of ${clientName} ${commandName} was made: teach ${__filename} its service`);
          const operation = commandName.replace(/Command$/, '');
          this.record({ functionName: invocation.functionName, service, operation, input: targetOf(service, (args as { input: Input }).input) });
        }
        return next(args);
      },
      { step: 'initialize', name: 'recordAwsCall', override: true },
    );
  }

  standIn<Result>(call: StoodInCall, work: () => Result): Result {
    const invocation = currentInvocation();
    if (!invocation) {
      this.unattributed++;
      return work();
    }
    this.record({ functionName: invocation.functionName, service: call.service, operation: call.operation, input: call.input });
    return runAs({ ...invocation, standIn: true }, work);
  }

  /** Append this file's calls to its worker's file, one JSON line each, and forget them. */
  flush(directory: string): void {
    mkdirSync(directory, { recursive: true });
    const lines = [...this.calls.values()].map((call) => JSON.stringify(call));
    lines.push(JSON.stringify({ file: this.file, unattributed: this.unattributed }));
    appendFileSync(join(directory, `calls-${process.pid}.jsonl`), `${lines.join('\n')}\n`);
    this.calls.clear();
    this.unattributed = 0;
  }
}

/** Start recording for this test file when AWS_CALLS_DIR is set; its calls are written after its last test. */
export function recordAwsCallsOfThisFile(testPath: string): void {
  const directory = process.env.AWS_CALLS_DIR;
  if (!directory) return;
  const recorder = new CallRecorder(relative(join(__dirname, '../../..'), testPath));
  watchAwsCalls(recorder);
  // Called by recording-environment.js once every hook of the file has run.
  (globalThis as { __flushRecordedAwsCalls?: () => void }).__flushRecordedAwsCalls = () => {
    watchAwsCalls(undefined);
    recorder.flush(directory);
  };
}
