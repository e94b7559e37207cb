// The IAM check (test/iam/) on the current template: a customer's mail is allowed on whichever of its
// identities SES authorizes it on, system mail on the stack's own sender identity, and a grant that
// misses what a call needs is denied. The recorded calls of a whole run are checked by `npm test`.
import { synthesizeDeployed, checkedSenderDomain, type DeployedStack } from '../iam/deployed-stack';
import { evaluate } from '../iam/evaluate';
import { identitiesAuthorizing, requestsOfCall, serviceRequests } from '../iam/iam-requests';
import type { CountedCall } from '../support/aws-calls/recorded-call';
import { linkRoutes } from '../../shared/routes';

const call = (functionName: string, service: CountedCall['service'], operation: string, input: Record<string, unknown>): CountedCall => ({
  functionName,
  service,
  operation,
  input,
  count: 1,
  file: 'test/infra/iam-check.test.ts',
});

describe('IAM check', () => {
  let stack: DeployedStack;
  beforeAll(() => {
    stack = synthesizeDeployed(`${__dirname}/../..`);
  }, 120_000);

  const outcomes = async (made: CountedCall) =>
    Promise.all(requestsOfCall(stack, made).map(async (request) => `${request.action} ${request.resource} ${await evaluate(stack, request)}`));

  test('SES authorizes a From address on its own identity or any domain identity above it, unless the stack made one of them', () => {
    expect(identitiesAuthorizing('news@mail.acme.example', new Set([checkedSenderDomain]))).toEqual(['news@mail.acme.example', 'mail.acme.example', 'acme.example']);
    expect(identitiesAuthorizing(`no-reply@${checkedSenderDomain}`, new Set([checkedSenderDomain]))).toEqual([checkedSenderDomain]);
  });

  test('the deliverer may send a customer\'s mail under its tenant, from its address or its domains', async () => {
    const arn = (resource: string) => `arn:aws:ses:eu-west-1:123456789012:${resource}`;
    expect(await outcomes(call('send-deliver', 'sesv2', 'SendEmail', { FromEmailAddress: 'news@acme.example', TenantName: 'account-1' }))).toEqual([
      `ses:SendEmail ${arn('identity/news@acme.example')} Allowed`,
      `ses:SendEmail ${arn('identity/acme.example')} Allowed`,
      `ses:SendEmail ${arn('configuration-set/email-campaign-dev')} Allowed`,
    ]);
  });

  test('a function that sends only system mail may send it from the service\'s domain, and not a customer\'s mail', async () => {
    expect(await outcomes(call('senders', 'sesv2', 'SendEmail', { FromEmailAddress: { system: true } }))).toEqual([
      `ses:SendEmail arn:aws:ses:eu-west-1:123456789012:identity/${checkedSenderDomain} Allowed`,
      'ses:SendEmail arn:aws:ses:eu-west-1:123456789012:configuration-set/email-campaign-dev Allowed',
    ]);
    expect(await outcomes(call('senders', 'sesv2', 'SendEmail', { FromEmailAddress: 'news@acme.example' }))).toEqual([
      'ses:SendEmail arn:aws:ses:eu-west-1:123456789012:identity/news@acme.example ImplicitlyDenied',
      'ses:SendEmail arn:aws:ses:eu-west-1:123456789012:identity/acme.example ImplicitlyDenied',
      'ses:SendEmail arn:aws:ses:eu-west-1:123456789012:configuration-set/email-campaign-dev Allowed',
    ]);
  });

  test('a call outside a function\'s grants is denied: the anonymous public pages cannot batch-write, nor send to a queue they are not given', async () => {
    expect(await outcomes(call('public-pages', 'dynamodb', 'BatchWriteItem', { RequestItems: ['email-service'] }))).toEqual([expect.stringMatching(/^dynamodb:BatchWriteItem \S+ ImplicitlyDenied$/)]);
    expect(() => requestsOfCall(stack, call('public-pages', 'sqs', 'SendMessageBatch', { Queue: 'deliveries' }))).toThrow(/no QUEUE_URL_DELIVERIES/);
  });

  test('the feedback function may read the delivery archive\'s objects under the stream\'s prefix, and nothing else of S3', async () => {
    const bucket = stack.functionOf('ses-events').environment.SES_EVENT_BUCKET as string;
    const key = 'ses-delivery-events/2026/11/28/17/ses-delivery-events-1-2026-11-28-17-00-00-0123';
    expect(await outcomes(call('ses-events', 's3', 'GetObject', { Bucket: 'local-ses-delivery-events', Key: key }))).toEqual([`s3:GetObject arn:aws:s3:::${bucket}/${key} Allowed`]);
    expect(await outcomes(call('ses-events', 's3', 'GetObject', { Bucket: 'local-ses-delivery-events', Key: 'elsewhere/object' }))).toEqual([`s3:GetObject arn:aws:s3:::${bucket}/elsewhere/object ImplicitlyDenied`]);
    // No other function is told of the archive, so none could name it.
    expect(() => requestsOfCall(stack, call('send-deliver', 's3', 'GetObject', { Bucket: 'local-ses-delivery-events', Key: key }))).toThrow(/no SES_EVENT_BUCKET/);
  });

  test('every request AWS services make for the stack is allowed: schedules, rules, routes, queues, logs', async () => {
    const requests = serviceRequests(stack, [call('send-dispatch', 'scheduler', 'CreateSchedule', { Name: 'single-send-1', Target: 'send-dispatch' })]);
    const principals = new Set(requests.map((request) => (request.principal.kind === 'service' ? request.principal.service : 'role')));
    expect([...principals].sort()).toEqual(['apigateway.amazonaws.com', 'events.amazonaws.com', 'firehose.amazonaws.com', 'role', 'scheduler.amazonaws.com']);
    // EventBridge puts SES's deliveries on the stream as its rule's role; the stream writes as its own.
    const streamed = requests.filter((request) => request.action.startsWith('firehose:') || (request.action.startsWith('s3:') && request.principal.kind === 'role'));
    expect(streamed.map((request) => `${request.principal.kind === 'role' ? request.principal.name.replace(/ \S+'s role$/, '') : ''} ${request.action}`).sort()).toEqual([
      'delivery stream s3:AbortMultipartUpload',
      'delivery stream s3:GetBucketLocation',
      'delivery stream s3:ListBucketMultipartUploads',
      'delivery stream s3:PutObject',
      'rule firehose:PutRecord',
      'rule firehose:PutRecordBatch',
    ]);
    const denied: string[] = [];
    for (const request of requests) {
      const outcome = await evaluate(stack, request);
      if (outcome !== 'Allowed') denied.push(`${outcome} ${request.action} ${request.resource} (${request.cause})`);
    }
    expect(denied).toEqual([]);
    // The public links' REST API invokes its functions as the HTTP API does, on its own stage.
    const viaLinks = requests.filter((request) => String(request.context['aws:SourceArn']).includes('/links/'));
    expect(viaLinks.map((request) => String(request.context['aws:SourceArn']).replace(/^.*\/links\//, '')).sort()).toEqual(linkRoutes.map((route) => `${route.method}/api/${route.path}`).sort());
    // And the resource policies are read: a rule the stack does not have may neither invoke a function
    // (identity-refresh's rule) nor put messages on the SES events queue (the feedback rule's target).
    const byEvents = (action: string) => requests.find((request) => request.principal.kind === 'service' && request.principal.service === 'events.amazonaws.com' && request.action === action && request.cause.startsWith('rule ') && !request.cause.includes('dead-letter'));
    const foreignContext = { 'aws:SourceArn': 'arn:aws:events:eu-west-1:123456789012:rule/another', 'aws:SourceAccount': '123456789012' };
    for (const action of ['lambda:InvokeFunction', 'sqs:SendMessage']) {
      const request = byEvents(action);
      expect(request).toBeDefined();
      expect(await evaluate(stack, { ...(request as (typeof requests)[number]), context: foreignContext })).toBe('ImplicitlyDenied');
    }
    expect(byEvents('sqs:SendMessage')?.resource).toContain('PlatformSesEventsQueue');
  });
});
