// Senders deployed (APP_RUNTIME=aws) through the handler on DynamoDB Local, with SES's identity calls
// faked at the SDK client: a save or a changed address registers the address with SES's custom
// verification mail of our template (no mail of ours), `is_verified` follows SES's verified status on
// details, the hourly budget still holds, an address another account holds gets our own signed link
// (SES's word is that account's), and the last sender of an address deletes its identity.
import { randomUUID } from 'node:crypto';
import { handler } from '../../functions/senders/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { addressHolder } from '../../shared/identities/address-repository';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { handlerCaller, multipart, type Keys } from '../support/events';
import { deployedRuntime, fakeSesIdentities, type FakeSesIdentities } from '../support/fake-ses-identities';
import { mailsTo, senderInput, startMailSink, stopMailSink } from '../support/senders';

type Account = Keys & { account_id: number };

const call = handlerCaller(handler);
const template = 'email-campaign-test-sender-verification';
const added = { status: 200, body: { status: 'success', message: 'Added Successfully' } };

const address = () => `news-${randomUUID()}@acme-${randomUUID().slice(0, 8)}.example`;

async function save(keys: Keys, fromEmail: string) {
  return call(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
}

async function details(keys: Keys, id = 1): Promise<Record<string, unknown>> {
  const { status, body } = await call(keys, 'GET', 'sender/details', { query: { sender_id: id } });
  expect(status).toBe(200);
  return (body.message as { sender: Record<string, unknown> }).sender;
}

async function listed(keys: Keys): Promise<Record<string, unknown>[]> {
  return ((await call(keys, 'GET', 'senders')).body.message as { senders: Record<string, unknown>[] }).senders;
}

describe('senders deployed: addresses as SES identities', () => {
  let sink: SesSink;
  let ses: FakeSesIdentities;
  let runtime: { restore(): void };

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
  });

  beforeEach(() => {
    runtime = deployedRuntime();
    ses = fakeSesIdentities();
  });

  afterEach(() => {
    ses.restore();
    runtime.restore();
  });

  afterAll(() => stopMailSink(sink));

  it("registers a saved address through SES's custom verification mail of our template, and sends none of its own", async () => {
    const keys = await newAccount();
    const from = address();
    expect(await save(keys, from)).toEqual(added);
    expect(ses.inputsOf('SendCustomVerificationEmail')).toEqual([{ EmailAddress: from, TemplateName: template }]);
    expect(await mailsTo(sink, from)).toEqual([]);
    expect(await addressHolder(from)).toBe(keys.account_id);
    // The mail went out: send_at says when, as for our own mail.
    expect(await details(keys)).toMatchObject({ from_email: from, is_verified: 0, send_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) });
  });

  it("shows the sender verified on details once SES has verified the address, and the list then says so too", async () => {
    const keys = await newAccount();
    const from = address();
    await save(keys, from);
    expect(await details(keys)).toMatchObject({ is_verified: 0 });
    expect((await listed(keys))[0]).toMatchObject({ is_verified: 0 });
    ses.click(from);
    // The list never asks SES per sender: it shows what is stored until details (or the periodic check) refreshes it.
    expect((await listed(keys))[0]).toMatchObject({ is_verified: 0 });
    expect(await details(keys)).toMatchObject({ from_email: from, is_verified: 1 });
    expect((await listed(keys))[0]).toMatchObject({ is_verified: 1 });
    // A verified sender is not asked about again.
    const asked = ses.inputsOf('GetEmailIdentity').length;
    await details(keys);
    expect(ses.inputsOf('GetEmailIdentity')).toHaveLength(asked);
  });

  it('registers a changed address, resends through SES, and deletes the identity of the address left behind', async () => {
    const keys = await newAccount();
    const first = address();
    const second = address();
    await save(keys, first);
    const update = await call(keys, 'POST', 'sender/update', { body: multipart(senderInput({ sender_id: 1, from_email: second })) });
    expect(update).toEqual({ status: 200, body: { status: 'success', message: 'Updated Successfully' } });
    expect(ses.inputsOf('SendCustomVerificationEmail').map((input) => input.EmailAddress)).toEqual([first, second]);
    expect(ses.inputsOf('DeleteEmailIdentity')).toEqual([{ EmailIdentity: first }]);
    expect(ses.has(first)).toBe(false);
    expect(await addressHolder(first)).toBeUndefined();
    expect(await addressHolder(second)).toBe(keys.account_id);
  });

  it('keeps the hourly budget of verification mails (5) for SES mail too', async () => {
    const keys = await newAccount();
    for (let i = 0; i < 5; i++) expect(await save(keys, address())).toEqual(added);
    const refused = await save(keys, address());
    expect(refused.status).toBe(429);
    expect(refused.body).toEqual({
      status: 'failed',
      errors: 'This account has sent as many verification mails as it may this hour. Please try again later.',
    });
    expect(ses.inputsOf('SendCustomVerificationEmail')).toHaveLength(5);
    expect(await listed(keys)).toHaveLength(5);
  });

  it('keeps the save when SES refuses the mail, with send_at unset, and resend-mail tries SES again', async () => {
    const keys = await newAccount();
    const from = address();
    ses.failNextMail('TooManyRequestsException');
    expect(await save(keys, from)).toEqual(added);
    expect(await details(keys)).toMatchObject({ is_verified: 0, send_at: null });
    expect(await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } })).toEqual({ status: 200, body: { status: 'success', message: 'Verification Mail Send' } });
    expect(ses.inputsOf('SendCustomVerificationEmail').map((input) => input.EmailAddress)).toEqual([from, from]);
  });

  it("mails our own signed link for an address another account holds, and never takes that account's SES verification", async () => {
    const holder: Account = await newAccount('Holder');
    const other: Account = await newAccount('Other');
    const from = address();
    await save(holder, from);
    ses.click(from);
    expect(await details(holder)).toMatchObject({ is_verified: 1 });

    expect(await save(other, from)).toEqual(added);
    expect(ses.inputsOf('SendCustomVerificationEmail')).toHaveLength(1);
    const mails = await mailsTo(sink, from);
    expect(mails).toHaveLength(1);
    expect(mails[0]?.from).toContain('no-reply@service.example');
    expect(mails[0]?.body.html).toContain('public/senders/confirm?token=');
    expect(await details(other)).toMatchObject({ is_verified: 0 });
    // Deleting the other account's sender leaves the holder's identity and claim alone.
    expect(await call(other, 'DELETE', 'sender/delete', { query: { sender_id: 1 } })).toEqual({ status: 200, body: { status: 'success', errors: 'Deleted Successfully' } });
    expect(ses.has(from)).toBe(true);
    expect(await addressHolder(from)).toBe(holder.account_id);
  });

  it("deletes the address's identity with the account's last sender of it, so the next account proves it afresh", async () => {
    const keys = await newAccount();
    const from = address();
    await save(keys, from);
    await save(keys, from.toUpperCase());
    ses.click(from);
    await call(keys, 'DELETE', 'sender/delete', { query: { sender_id: 1 } });
    expect(ses.has(from)).toBe(true);
    await call(keys, 'DELETE', 'sender/delete', { query: { sender_id: 2 } });
    expect(ses.has(from)).toBe(false);
    expect(await addressHolder(from)).toBeUndefined();

    const next = await newAccount();
    await save(next, from);
    expect(await addressHolder(from)).toBe(next.account_id);
    expect(await details(next)).toMatchObject({ is_verified: 0 });
  });

  it("answers 404 for another account's sender without asking SES, and 401 without credentials", async () => {
    const owner = await newAccount();
    await save(owner, address());
    const asked = ses.calls.length;
    expect(await call(await newAccount(), 'GET', 'sender/details', { query: { sender_id: 1 } })).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
    expect(ses.calls).toHaveLength(asked);
    expect((await call(undefined, 'GET', 'sender/details', { query: { sender_id: 1 } })).status).toBe(401);
  });
});
