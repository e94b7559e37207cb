// `single/send/resend` through the handler on DynamoDB Local: a completed send's non-openers (or
// non-clickers) as they stand at the resend's own dispatch, people's opens and clicks only, the
// unsubscribed and deleted left out; its record and details; every refusal.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { addContact, deleteContact } from '../../shared/audience/contact-service';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { addToSuppressionList } from '../../shared/suppressions/repository';
import { apiEvent, multipart } from '../support/events';
import { asAReader, browserUserAgent } from '../support/recipient-pages';
import { contactFields, mailsTo, startSendingEnvironment, type SendingEnvironment, type SinkMail } from '../support/sending';
import { callSingleSends as call, newSendingAccount, sendFields, type SendingAccount } from '../support/single-sends';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
});

afterAll(async () => {
  await env.stop();
});

const design = '<!DOCTYPE html><html><body><p>Dear ((first_name)), <a href="https://shop.example/sale">shop the sale</a></p></body></html>';

function request(link: string, userAgent: string): Promise<APIGatewayProxyStructuredResultV2> {
  const url = new URL(link.replace(/&amp;/g, '&'));
  return publicPages(apiEvent({ method: 'GET', path: url.pathname.replace(/^\/api\//, ''), query: Object.fromEntries(url.searchParams), headers: { 'user-agent': userAgent } }));
}

function pixelOf(mail: SinkMail): string {
  return /<img src="([^"]+\/public\/open\?token=[^"]+)"/.exec(String(mail.body.html))?.[1] as string;
}

function firstLinkOf(mail: SinkMail): string {
  return /<a [^>]*href="([^"]*\/public\/click\?[^"]*)"/.exec(String(mail.body.html))?.[1] as string;
}

async function mailOf(email: string, subject?: string): Promise<SinkMail> {
  const mails = (await mailsTo(env.sink, [email])).filter((mail) => subject === undefined || mail.subject === subject);
  return mails[mails.length - 1] as SinkMail;
}

async function settle(): Promise<void> {
  await localQueueIdle();
  await env.sink.eventsIdle();
}

/** Create (through the API) and dispatch a send to the account's contact type; its utr. */
async function completedSend(account: SendingAccount, name: string): Promise<string> {
  const created = await call(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, { single_send_name: name, subject: `${name} subject`, template_html: design })) });
  const utr = (created.body.message as { utr: string }).utr;
  await dispatchHandler({ accountId: account.keys.account_id, utr });
  await settle();
  return utr;
}

async function resend(account: SendingAccount, fields: Record<string, string | number>) {
  return call(account.keys, 'POST', 'single/send/resend', { body: multipart(fields) });
}

async function details(account: SendingAccount, utr: string): Promise<Record<string, unknown>> {
  const { body } = await call(account.keys, 'GET', 'single-send/details', { query: { utr } });
  return (body.message as { singleSend: Record<string, unknown>[] }).singleSend[0] as Record<string, unknown>;
}

/** A fresh account with these contacts in its type, mailed by one completed send. */
async function mailedAccount(names: readonly string[]): Promise<{ account: SendingAccount; utr: string; emails: Record<string, string>; ids: Record<string, number> }> {
  const account = await newSendingAccount();
  const tag = Math.random().toString(36).slice(2, 8);
  const emails: Record<string, string> = {};
  const ids: Record<string, number> = {};
  for (const name of names) {
    emails[name] = `${name}-${tag}@example.com`;
    ids[name] = (await addContact(account.keys.account_id, contactFields(account.contactTypeId, emails[name] as string), {})).id;
  }
  const utr = await completedSend(account, 'Spring news');
  return { account, utr, emails, ids };
}

describe('single/send/resend', () => {
  test('mails, at its dispatch, exactly the recipients who have not opened: a click counts as an open, a machine open does not', async () => {
    // Prepare: seven recipients mailed; one opens, one clicks, Apple's proxy opens for one, one unsubscribes, one is deleted.
    const { account, utr, emails, ids } = await mailedAccount(['opener', 'clicker', 'proxied', 'quiet', 'leaver', 'deleted', 'late']);
    await asAReader(async () => {
      await request(pixelOf(await mailOf(emails.opener as string)), browserUserAgent);
      await request(firstLinkOf(await mailOf(emails.clicker as string)), browserUserAgent);
    });
    await request(pixelOf(await mailOf(emails.proxied as string)), 'Mozilla/5.0');
    await addToSuppressionList({ accountId: account.keys.account_id, groupId: null }, [emails.leaver as string]);
    await deleteContact(account.keys.account_id, ids.deleted as number);
    // Joins the type after the original: never its recipient.
    await addContact(account.keys.account_id, contactFields(account.contactTypeId, `newcomer-${utr.slice(0, 6)}@example.com`), {});

    // Act: the resend is created, then one more recipient opens before it is dispatched.
    const created = await resend(account, { utr, audience: 'non_openers', schedule_type: 0 });
    const resendUtr = (created.body.message as { utr: string }).utr;
    await asAReader(() => mailOf(emails.late as string).then((mail) => request(pixelOf(mail), browserUserAgent)));
    await dispatchHandler({ accountId: account.keys.account_id, utr: resendUtr });
    await settle();

    // Assess
    expect(created).toEqual({ status: 200, body: { status: 'success', message: { utr: expect.stringMatching(/^[0-9a-f-]{36}$/) } } });
    const resent = (await mailsTo(env.sink, Object.values(emails))).filter((mail) => mail.subject === 'Spring news subject');
    const twice = Object.entries(emails).filter(([, email]) => resent.filter((mail) => mail.destination.to.includes(email)).length === 2);
    expect(twice.map(([name]) => name).sort()).toEqual(['proxied', 'quiet']);
    expect(await details(account, resendUtr)).toMatchObject({ status: 3, triggered: 2, resend_of: { utr, audience: 'non_openers' } });
  });

  test('to non-clickers it mails the openers who did not click, with its own subject and name', async () => {
    // Prepare
    const { account, utr, emails } = await mailedAccount(['opener', 'clicker']);
    await asAReader(async () => {
      await request(pixelOf(await mailOf(emails.opener as string)), browserUserAgent);
      await request(firstLinkOf(await mailOf(emails.clicker as string)), browserUserAgent);
    });

    // Act
    const created = await resend(account, { utr, audience: 'non_clickers', subject: 'Last chance', single_send_name: 'Spring news again', schedule_type: 0 });
    const resendUtr = (created.body.message as { utr: string }).utr;
    await dispatchHandler({ accountId: account.keys.account_id, utr: resendUtr });
    await settle();

    // Assess
    expect((await mailsTo(env.sink, Object.values(emails))).filter((mail) => mail.subject === 'Last chance').map((mail) => mail.destination.to)).toEqual([[emails.opener]]);
    expect(await details(account, resendUtr)).toMatchObject({ single_send_name: 'Spring news again', subject: 'Last chance', resend_of: { utr, audience: 'non_clickers' } });
  });

  test("its record takes the original's design, sender, group and preheader; the defaults name it a resend; plain sends show resend_of null", async () => {
    // Prepare
    const { account, utr } = await mailedAccount(['reader']);
    const later = new Date(Date.now() + 3 * 24 * 3600_000).toISOString();

    // Act
    const created = await resend(account, { utr, audience: 'non_openers', schedule_type: 1, schedule_date: later.slice(0, 10), schedule_time: '09:30' });
    const resendUtr = (created.body.message as { utr: string }).utr;

    // Assess
    const original = await details(account, utr);
    expect(original.resend_of).toBeNull();
    expect(await details(account, resendUtr)).toEqual({
      ...original,
      id: expect.any(Number),
      utr: resendUtr,
      status: 1,
      single_send_name: 'Spring news (resend)',
      recipient_id: [],
      exclude_specific_recipient_id: [],
      schedule_type: 1,
      schedule_date: later.slice(0, 10),
      schedule_time: '09:30:00',
      triggered: 0,
      delivered: 0,
      unique_opens: 0,
      total_opens: 0,
      bounces: 0,
      unsubscribes: 0,
      uncertain: 0,
      sent_at: null,
      created_at: expect.any(String),
      updated_at: expect.any(String),
      resend_of: { utr, audience: 'non_openers' },
      audience: undefined,
      processed: undefined,
    });
  });

  test('refuses missing and invalid fields with every message at once', async () => {
    const account = await newSendingAccount();
    expect(await resend(account, {})).toEqual({
      status: 422,
      body: { status: 'failed', errors: { utr: ['The utr field is required.'], audience: ['The audience field is required.'], schedule_type: ['The schedule type field is required.'] } },
    });
    const longText = 'x'.repeat(256);
    expect(await resend(account, { utr: 'x', audience: 'everyone', subject: longText, single_send_name: longText, schedule_type: 1 })).toEqual({
      status: 422,
      body: {
        status: 'failed',
        errors: {
          audience: ['The selected audience is invalid.'],
          subject: ['The subject field must not be greater than 255 characters.'],
          single_send_name: ['The single send name field must not be greater than 255 characters.'],
          schedule_date: ['The schedule date field is required when schedule type is 1.'],
          schedule_time: ['The schedule time field is required when schedule type is 1.'],
        },
      },
    });
  });

  test('refuses a send that has not completed with 422, and an unknown or another account\'s send with 404', async () => {
    // Prepare
    const { account, utr } = await mailedAccount(['reader']);
    const stranger = await newSendingAccount();
    const draft = await call(account.keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, { schedule_type: 1, schedule_date: '2099-01-01', schedule_time: '10:00' })) });
    const readyUtr = (draft.body.message as { utr: string }).utr;
    const fields = { audience: 'non_openers', schedule_type: 0 };

    // Act
    const notCompleted = await resend(account, { ...fields, utr: readyUtr });
    const unknown = await resend(account, { ...fields, utr: '5b0f3c3e-8a53-4d2c-9a11-0c1d2e3f4a5b' });
    const notAUtr = await resend(account, { ...fields, utr: 'not-a-utr' });
    const theirs = await resend(stranger, { ...fields, utr });

    // Assess
    expect(notCompleted).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field must name a completed single send.'] } } });
    const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' } };
    expect([unknown, notAUtr, theirs]).toEqual([notFound, notFound, notFound]);
  });

  test('answers 401 without credentials or with wrong ones', async () => {
    const account = await newSendingAccount();
    const stranger = await newSendingAccount();
    expect(await call(undefined, 'POST', 'single/send/resend', { body: multipart({ audience: 'non_openers' }) })).toEqual({
      status: 401,
      body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
    });
    expect(await call({ public_key: account.keys.public_key, secret_key: stranger.keys.secret_key }, 'POST', 'single/send/resend', { body: multipart({}) })).toEqual({
      status: 401,
      body: { status: 'failed', errors: 'Invalid credentials.' },
    });
  });
});
