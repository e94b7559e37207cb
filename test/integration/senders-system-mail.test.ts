// Sender verification mail cannot be used to spam: an hourly budget per account on save, on a
// changed address and on resend, answered with 429 and Retry-After, and the minimum interval of a
// resend answered the same way.
import { handler } from '../../functions/senders/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { resetConfig } from '../../shared/config';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, multipart, parsed, type Keys } from '../support/events';
import { mailsTo, senderInput, startMailSink, stopMailSink, uniqueAddress } from '../support/senders';

const overBudget = {
  status: 'failed',
  errors: 'This account has sent as many verification mails as it may this hour. Please try again later.',
};

async function call(keys: Keys, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) {
  const response = await handler(apiEvent({ method, path, ...options, headers: authHeaders(keys) }));
  return { ...parsed(response), retryAfter: response.headers?.['retry-after'] };
}

async function senderCount(keys: Keys): Promise<number> {
  const { body } = await call(keys, 'GET', 'senders');
  return (body.message as { senders: unknown[] }).senders.length;
}

async function save(keys: Keys, fromEmail = uniqueAddress()) {
  return call(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
}

describe('the system-mail budget of sender verification mails', () => {
  let sink: SesSink;
  const start = new Date('2031-05-01T10:00:00Z');
  const at = (seconds: number) => setClock(() => new Date(start.getTime() + seconds * 1000));

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
  }, 120_000);

  afterEach(() => {
    resetClock();
    delete process.env.SYSTEM_MAIL_VERIFICATIONS_PER_HOUR;
    resetConfig();
  });

  afterAll(async () => {
    await stopMailSink(sink);
  });

  it('refuses a save past 5 verification mails in the hour with 429 and Retry-After, and saves nothing', async () => {
    const keys = await newAccount();
    at(0);
    for (let i = 0; i < 5; i++) expect((await save(keys)).status).toBe(200);
    at(20 * 60);
    const refusedAddress = uniqueAddress();
    // Act
    const refused = await save(keys, refusedAddress);
    // Assess
    expect(refused).toEqual({ status: 429, body: overBudget, retryAfter: String(40 * 60) });
    expect(await senderCount(keys)).toBe(5);
    expect(await mailsTo(sink, refusedAddress)).toHaveLength(0);
    // The next hour lets it in again.
    at(60 * 60);
    expect((await save(keys, refusedAddress)).status).toBe(200);
    expect(await mailsTo(sink, refusedAddress)).toHaveLength(1);
  });

  it('keeps each account to its own budget', async () => {
    const busy = await newAccount();
    at(0);
    for (let i = 0; i < 5; i++) await save(busy);
    expect((await save(busy)).status).toBe(429);
    expect((await save(await newAccount())).status).toBe(200);
  });

  it('lets exactly the budget through when saves arrive at once', async () => {
    const keys = await newAccount();
    at(0);
    const results = await Promise.all(Array.from({ length: 8 }, () => save(keys)));
    expect(results.map((result) => result.status).sort()).toEqual([200, 200, 200, 200, 200, 429, 429, 429]);
    expect(await senderCount(keys)).toBe(5);
  });

  it('counts resends and refuses one past the budget with 429', async () => {
    const keys = await newAccount();
    const fromEmail = uniqueAddress();
    at(0);
    await save(keys, fromEmail);
    for (let i = 1; i <= 4; i++) {
      at(i * 120);
      expect((await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } })).status).toBe(200);
    }
    at(10 * 60);
    // Act
    const refused = await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } });
    // Assess
    expect(refused).toEqual({ status: 429, body: overBudget, retryAfter: String(50 * 60) });
    expect(await mailsTo(sink, fromEmail)).toHaveLength(5);
  });

  it('answers a resend inside its minimum interval with 429, and that refusal costs no budget', async () => {
    process.env.SYSTEM_MAIL_VERIFICATIONS_PER_HOUR = '2';
    resetConfig();
    const keys = await newAccount();
    const fromEmail = uniqueAddress();
    at(0);
    await save(keys, fromEmail);
    at(30);
    const early = await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } });
    expect(early).toEqual({
      status: 429,
      body: { status: 'failed', errors: 'Please wait before requesting another verification mail.' },
      retryAfter: '30',
    });
    at(60);
    expect((await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } })).status).toBe(200);
    expect(await mailsTo(sink, fromEmail)).toHaveLength(2);
  });

  it('refuses an address change past the budget and keeps the old address', async () => {
    process.env.SYSTEM_MAIL_VERIFICATIONS_PER_HOUR = '1';
    resetConfig();
    const keys = await newAccount();
    const fields = senderInput();
    at(0);
    await call(keys, 'POST', 'sender/save', { body: multipart(fields) });
    const newAddress = uniqueAddress();
    // Act
    const refused = await call(keys, 'POST', 'sender/update', { body: multipart({ ...fields, from_email: newAddress, sender_id: 1 }) });
    // Assess
    expect(refused).toEqual({ status: 429, body: overBudget, retryAfter: '3600' });
    const { body } = await call(keys, 'GET', 'sender/details', { query: { sender_id: 1 } });
    expect((body.message as { sender: { from_email: string } }).sender.from_email).toBe(fields.from_email);
    expect(await mailsTo(sink, newAddress)).toHaveLength(0);
    // An update that keeps the address sends nothing and so needs no budget.
    const renamed = await call(keys, 'POST', 'sender/update', { body: multipart({ ...fields, nickname: 'Renamed', sender_id: 1 }) });
    expect(renamed.status).toBe(200);
  });
});
