// Faults between us and AWS, with the official SDK clients and real engines (DynamoDB Local, the SES
// sink): a transaction whose answer was lost is retried with the same idempotency token and not
// reported as a conflict, a throttled DynamoDB call is retried, and an SES send whose answer was lost
// is never sent again. The faults are injected in the client's own middleware stack (inside its retry
// loop) or by a proxy in front of the sink, so the SDK's real retry and idempotency paths run.
import { SendEmailCommand, SESv2Client } from '@aws-sdk/client-sesv2';
import { resetConfig } from '../../shared/config';
import { db } from '../../shared/table/client';
import { findCountryByCode, seedReferenceData } from '../../shared/reference-data/repository';
import { sendMail } from '../../shared/mail/mailer';
import { newAccount } from '../support/accounts';
import { addType, callContacts, contactCounts } from '../support/contacts';
import { multipart } from '../support/events';
import { mailsTo, startSendingEnvironment, startSesProxy, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
});

afterAll(async () => {
  await env.stop();
});

afterEach(() => {
  process.env.SES_ENDPOINT = env.sink.endpoint;
  resetConfig();
});

type Fault = (attempt: number, operation: string) => 'pass' | 'lose-answer' | 'throttle';

interface FaultOptions {
  /** Send every request without its ClientRequestToken, as a client that never sets one would. */
  dropTokens?: boolean;
}

/**
 * Install a fault on the document client for the duration of `run`: in the deserialize step, which the
 * SDK's retry middleware wraps, so each HTTP attempt passes through it. Returns each attempt's
 * operation and the ClientRequestToken it carried.
 */
async function withFault<T>(fault: Fault, run: () => Promise<T>, options: FaultOptions = {}): Promise<{ result: T; attempts: { operation: string; token?: string }[] }> {
  const attempts: { operation: string; token?: string }[] = [];
  const client = db();
  client.middlewareStack.add(
    (next, context) => async (args) => {
      const operation = String(context.commandName).replace(/Command$/, '');
      const raw = (args.request as { body?: string | Uint8Array }).body;
      const body = raw instanceof Uint8Array ? Buffer.from(raw).toString('utf8') : raw;
      const token = body?.includes('ClientRequestToken') ? (JSON.parse(body) as { ClientRequestToken?: string }).ClientRequestToken : undefined;
      attempts.push({ operation, token });
      if (options.dropTokens && token && body) {
        const { ClientRequestToken: _dropped, ...rest } = JSON.parse(body) as Record<string, unknown>;
        (args.request as { body?: string }).body = JSON.stringify(rest);
        (args.request as { headers: Record<string, string> }).headers['content-length'] = String(Buffer.byteLength(JSON.stringify(rest)));
      }
      const action = fault(attempts.filter((attempt) => attempt.operation === operation).length, operation);
      if (action === 'throttle') {
        throw Object.assign(new Error('Throughput exceeds the current capacity of your table or index.'), {
          name: 'ProvisionedThroughputExceededException',
          $fault: 'client',
          $metadata: { httpStatusCode: 400 },
        });
      }
      const output = await next(args);
      if (action === 'lose-answer') {
        // The request reached DynamoDB and was applied; the answer never came back.
        throw Object.assign(new Error('socket hang up'), { name: 'Error', code: 'ECONNRESET', $metadata: {} });
      }
      return output;
    },
    { step: 'deserialize', name: 'injectFault', priority: 'low' },
  );
  try {
    return { result: await run(), attempts };
  } finally {
    client.middlewareStack.remove('injectFault');
  }
}

describe('DynamoDB through the SDK', () => {
  test('a contact add whose TransactWriteItems answer is lost is retried with the same token, not answered as a conflict', async () => {
    // Prepare
    const keys = await newAccount();
    const typeId = await addType(keys, 'Lost answers');
    const countryId = ((await findCountryByCode('US')) as { id: number }).id;

    // Act: the first TransactWriteItems is applied, its answer lost; the SDK retries it.
    const { result, attempts } = await withFault(
      (attempt, operation) => (operation === 'TransactWriteItems' && attempt === 1 ? 'lose-answer' : 'pass'),
      () => callContacts(keys, 'POST', 'contacts/add', { body: multipart({ email: 'lost@example.com', contact_type_id: typeId, country: countryId }) }),
    );

    // Assess: one success, one contact, counted once, and both attempts carried one token.
    expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Contact Added Successfully' } });
    const transactions = attempts.filter((attempt) => attempt.operation === 'TransactWriteItems');
    expect(transactions).toHaveLength(2);
    expect(transactions[0]?.token).toMatch(/^[0-9a-f-]{36}$/);
    expect(transactions[1]?.token).toBe(transactions[0]?.token);
    expect(await contactCounts(keys)).toEqual({ [typeId]: 1 });
  });

  test('(why the token matters) the same lost answer without a ClientRequestToken comes back as a conflict', async () => {
    const keys = await newAccount();
    const typeId = await addType(keys, 'No tokens');
    const countryId = ((await findCountryByCode('US')) as { id: number }).id;

    const { result } = await withFault(
      (attempt, operation) => (operation === 'TransactWriteItems' && attempt === 1 ? 'lose-answer' : 'pass'),
      () => callContacts(keys, 'POST', 'contacts/add', { body: multipart({ email: 'lost@example.com', contact_type_id: typeId, country: countryId }) }),
      { dropTokens: true },
    );

    // The contact was written by the first attempt; the retry finds its own email claim and fails.
    expect(result.status).toBe(422);
    expect(await contactCounts(keys)).toEqual({ [typeId]: 1 });
  });

  test('throttled calls are retried and succeed', async () => {
    const keys = await newAccount();

    const added = await withFault(
      (attempt) => (attempt === 1 ? 'throttle' : 'pass'),
      () => addType(keys, 'Throttled'),
    );
    expect(added.result).toBeGreaterThan(0);
    // Each operation's first attempt was throttled and tried again (an operation the requests use more
    // than once, such as the per-account request counter's UpdateItem, shows its later calls too).
    const byOperation = new Map<string, number>();
    for (const attempt of added.attempts) byOperation.set(attempt.operation, (byOperation.get(attempt.operation) ?? 0) + 1);
    expect(byOperation.size).toBeGreaterThan(0);
    expect([...byOperation.values()].every((count) => count >= 2)).toBe(true);
  });
});

describe('SES through the SDK', () => {
  test('a send whose answer is lost fails once and is never sent again', async () => {
    // Prepare: SES takes the mail, then the connection drops before its answer.
    const proxy = await startSesProxy(env.sink, () => 'forward-then-reset');
    process.env.SES_ENDPOINT = proxy.endpoint;
    resetConfig();
    const to = `lost-answer-${Date.now()}@example.com`;

    // Act
    const outcome = await sendMail({ from: 'sender@example.com', to: [to], subject: 'Once', html: '<p>once</p>' }).then(
      () => 'sent',
      (error: Error) => error.message,
    );

    // Assess: the caller learns the outcome is unknown; SES saw one call and the mailbox holds one mail.
    expect(outcome).toMatch(/socket hang up|ECONNRESET/);
    expect(proxy.calls).toEqual(['forward-then-reset']);
    expect(await mailsTo(env.sink, [to])).toHaveLength(1);
    await proxy.stop();
  });

  test('a send SES never answers is abandoned after the request timeout, once, and not sent again', async () => {
    const proxy = await startSesProxy(env.sink, () => 'forward-then-hang');
    process.env.SES_ENDPOINT = proxy.endpoint;
    process.env.SES_REQUEST_TIMEOUT_MS = '300';
    resetConfig();
    const to = `no-answer-${Date.now()}@example.com`;
    try {
      const outcome = await sendMail({ from: 'sender@example.com', to: [to], subject: 'Once', html: '<p>once</p>' }).then(
        () => 'sent',
        (error: Error) => error.name,
      );

      expect(outcome).toBe('TimeoutError');
      expect(proxy.calls).toEqual(['forward-then-hang']);
      expect(await mailsTo(env.sink, [to])).toHaveLength(1);
    } finally {
      delete process.env.SES_REQUEST_TIMEOUT_MS;
      await proxy.stop();
    }
  });

  test('(the hazard the one-attempt rule guards against) a client with the SDK default retries would mail twice', async () => {
    const proxy = await startSesProxy(env.sink, (call) => (call === 1 ? 'forward-then-reset' : 'forward'));
    const defaultClient = new SESv2Client({ region: 'us-east-1', endpoint: proxy.endpoint, credentials: { accessKeyId: 'local', secretAccessKey: 'local' } });
    const to = `retried-${Date.now()}@example.com`;

    await defaultClient.send(
      new SendEmailCommand({
        FromEmailAddress: 'sender@example.com',
        Destination: { ToAddresses: [to] },
        Content: { Simple: { Subject: { Data: 'Twice' }, Body: { Html: { Data: '<p>twice</p>' } } } },
      }),
    );

    expect(proxy.calls).toEqual(['forward-then-reset', 'forward']);
    expect(await mailsTo(env.sink, [to])).toHaveLength(2);
    defaultClient.destroy();
    await proxy.stop();
  });
});
