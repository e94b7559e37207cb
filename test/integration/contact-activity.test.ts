// `contacts/activity` through the handler on DynamoDB Local: a contact's sent, delivered, open, click,
// bounce, unsubscribe and opt-in entries after a real send, newest first and paged (the timed entries
// and the ledger's mails merged, ties included), the `sent` lines of a delivery run killed midway,
// not found for another account, and gone with the contact (delete and bulk delete) while the
// ledger still keeps a running send from mailing the address added back.
import type { APIGatewayProxyStructuredResultV2, EventBridgeEvent } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as sesEventsHandler } from '../../functions/ses-events/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { activityPartition, recordActivity, recordOptInConfirmed } from '../../shared/contacts/activity';
import { resetConfig } from '../../shared/config';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { claimRecipient, markRecipientSent } from '../../shared/ledger/repository';
import { dispatchSingleSend } from '../../shared/single-send-runs/dispatch';
import { startDispatch } from '../../shared/single-sends/progress';
import { recordSendEvent } from '../../shared/statistics/event-counts';
import { resetClock, setClock } from '../../shared/time';
import type { SesEventRecord } from '../../shared/feedback/ses-feedback';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { queryAll } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { apiEvent, json } from '../support/events';
import { callContacts as call } from '../support/contacts';
import { waitFor } from '../support/local-stack';
import { asAReader, browserUserAgent, oneClick } from '../support/recipient-pages';
import { contactFields, mailsTo, readySend, sqsEvent, startSendingEnvironment, startSesProxy, type SendingEnvironment, type SesProxy, type SinkMail } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

let proxy: SesProxy | undefined;
/** Delivery runs left behind as if killed, let finish once their SES calls end (after each test). */
let abandoned: Promise<unknown>[] = [];

afterEach(async () => {
  await proxy?.stop();
  proxy = undefined;
  await Promise.all(abandoned);
  abandoned = [];
  delete process.env.DELIVERY_CONCURRENCY;
  process.env.SES_ENDPOINT = env.sink.endpoint;
  resetConfig();
  resetSendingSettings();
  resetClock();
});

const design = '<!DOCTYPE html><html><body><p>Dear ((first_name)), <a href="https://shop.example/sale">shop the sale</a></p></body></html>';

function request(link: string): Promise<APIGatewayProxyStructuredResultV2> {
  const url = new URL(link.replace(/&amp;/g, '&'));
  return publicPages(apiEvent({ method: 'GET', path: url.pathname.replace(/^\/api\//, ''), query: Object.fromEntries(url.searchParams), headers: { 'user-agent': browserUserAgent } }));
}

function linkOf(mail: SinkMail, pattern: RegExp): string {
  return pattern.exec(String(mail.body.html))?.[1] as string;
}

const pixel = /<img src="([^"]+\/public\/open\?token=[^"]+)"/;
const click = /<a [^>]*href="([^"]*\/public\/click\?[^"]*)"/;

async function bounce(accountId: number, utr: string, email: string): Promise<void> {
  const event = {
    source: 'aws.ses',
    'detail-type': 'Email Bounced',
    detail: {
      eventType: 'Bounce',
      mail: { messageId: `bounce-${utr}`, destination: [email], tags: { send_ref: [encodeSendRef({ kind: 'single-send', accountId, utr })] } },
      bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: email }] },
    },
  } as unknown as EventBridgeEvent<string, SesEventRecord>;
  await sesEventsHandler(event);
}

/** An account whose three contacts were mailed by one send; the reader opened and clicked, the bouncer bounced, the leaver unsubscribed. */
async function mailedWorld() {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Readers');
  const tag = Math.random().toString(36).slice(2, 8);
  const emails = { reader: `reader-${tag}@example.com`, bouncer: `bouncer-${tag}@example.com`, leaver: `leaver-${tag}@example.com` };
  const ids: Record<string, number> = {};
  for (const [name, email] of Object.entries(emails)) ids[name] = (await addContact(keys.account_id, contactFields(type.id, email), {})).id;
  const send = await readySend(keys.account_id, { recipient_id: [{ id: String(type.id), table: 'contacts_' }], subject: 'Spring sale', template_html: design });
  await dispatchHandler({ accountId: keys.account_id, utr: send.utr });
  await localQueueIdle();
  await env.sink.eventsIdle();
  const [mail] = await mailsTo(env.sink, [emails.reader]);
  await asAReader(async () => {
    await request(linkOf(mail as SinkMail, pixel));
    await request(linkOf(mail as SinkMail, click));
  });
  await bounce(keys.account_id, send.utr, emails.bouncer);
  const [leaverMail] = await mailsTo(env.sink, [emails.leaver]);
  const token = new URL(linkOf(leaverMail as SinkMail, pixel).replace(/&amp;/g, '&')).searchParams.get('token') as string;
  await oneClick(token);
  return { keys, utr: send.utr, emails, ids };
}

const mailLine = (utr: string) => ({ utr, automation_utr: null, subject: 'Spring sale', url: null, at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/) });

describe('contacts/activity', () => {
  let world: Awaited<ReturnType<typeof mailedWorld>>;

  beforeAll(async () => {
    world = await mailedWorld();
  });

  test("lists the contact's events newest first: click, open, delivered, sent", async () => {
    const result = await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: world.ids.reader as number } });
    expect(result).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: {
          activity: [
            { event: 'click', ...mailLine(world.utr), url: 'https://shop.example/sale' },
            { event: 'open', ...mailLine(world.utr) },
            { event: 'delivered', ...mailLine(world.utr) },
            { event: 'sent', ...mailLine(world.utr) },
          ],
          next_cursor: null,
        },
      },
    });
    const times = (result.body.message as { activity: { at: string }[] }).activity.map((line) => line.at);
    expect([...times].sort().reverse()).toEqual(times);
  });

  test('shows a bounce, an unsubscribe and a confirmed opt-in with what does not apply null', async () => {
    await recordOptInConfirmed(world.keys.account_id, world.emails.leaver, new Date(Date.now() + 60_000));
    const bounced = await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: world.ids.bouncer as number } });
    const left = await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: world.ids.leaver as number } });
    expect((bounced.body.message as { activity: { event: string }[] }).activity.map((line) => line.event)).toEqual(['bounce', 'delivered', 'sent']);
    expect((left.body.message as { activity: unknown[] }).activity).toEqual([
      { event: 'opt_in_confirmed', utr: null, automation_utr: null, subject: null, url: null, at: expect.any(String) },
      { event: 'unsubscribe', ...mailLine(world.utr) },
      { event: 'delivered', ...mailLine(world.utr) },
      { event: 'sent', ...mailLine(world.utr) },
    ]);
  });

  test('pages with limit and cursor like every list, and refuses a cursor of another list', async () => {
    const events: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: world.ids.reader as number, limit: 1, ...(cursor ? { cursor } : {}) } });
      const message = page.body.message as { activity: { event: string }[]; next_cursor: string | null };
      events.push(...message.activity.map((line) => line.event));
      cursor = message.next_cursor ?? undefined;
      pages++;
    } while (cursor && pages < 10);
    // A sent entry brings its delivered line with it.
    expect(events).toEqual(['click', 'open', 'delivered', 'sent']);
    const first = await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: world.ids.reader as number, limit: 1 } });
    const otherList = (first.body.message as { next_cursor: string }).next_cursor;
    expect(await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: world.ids.bouncer as number, cursor: otherList } })).toEqual({
      status: 422,
      body: { status: 'failed', errors: { cursor: ['The cursor field is invalid.'] } },
    });
  });

  test("answers 404 for an unknown contact and for another account's, 422 without contact_id, 401 without credentials", async () => {
    const stranger = await newAccount();
    const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
    expect(await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: 999_999 } })).toEqual(notFound);
    expect(await call(stranger, 'GET', 'contacts/activity', { query: { contact_id: world.ids.reader as number } })).toEqual(notFound);
    expect(await call(world.keys, 'GET', 'contacts/activity')).toEqual({ status: 422, body: { status: 'failed', errors: { contact_id: ['The contact id field is required.'] } } });
    expect(await call(undefined, 'GET', 'contacts/activity', { query: { contact_id: 1 } })).toEqual({
      status: 401,
      body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
    });
    expect(await call({ public_key: world.keys.public_key, secret_key: stranger.secret_key }, 'GET', 'contacts/activity', { query: { contact_id: 1 } })).toEqual({
      status: 401,
      body: { status: 'failed', errors: 'Invalid credentials.' },
    });
  });

  test('deleting a contact, alone or in a bulk delete, deletes its activity: a contact added back at the address shows none of it', async () => {
    const { keys, emails, ids } = await mailedWorld();
    /** The address's timed entries (its events after the mail); its ledger entry and markers are the other items. */
    const timed = async (email: string) => (await queryAll({ partition: activityPartition(keys.account_id, email) })).filter((item) => /^\d/.test(String(item.sk)));
    expect((await timed(emails.reader)).map((item) => item.e)).toEqual(['open', 'click']);

    await call(keys, 'DELETE', 'contacts/delete', { query: { contact_id: ids.reader as number } });
    await call(keys, 'POST', 'contacts/bulk-delete', { body: json({ strIds: [ids.bouncer, ids.leaver] }) });

    expect(await Promise.all([timed(emails.reader), timed(emails.bouncer), timed(emails.leaver)])).toEqual([[], [], []]);
    const type = await addContactType(keys.account_id, 'Back again');
    const back = await addContact(keys.account_id, contactFields(type.id, emails.reader), {});
    expect(await call(keys, 'GET', 'contacts/activity', { query: { contact_id: back.id } })).toEqual({ status: 200, body: { status: 'success', message: { activity: [], next_cursor: null } } });
  });

  test('a contact deleted and added back while a send runs is not mailed again by that send, and its activity starts afresh', async () => {
    // Prepare: a send to a type of two contacts whose first page (one contact) went out.
    const keys = await newAccount();
    const type = await addContactType(keys.account_id, 'Readers');
    const tag = Math.random().toString(36).slice(2, 8);
    const [first, second] = [`first-${tag}@example.com`, `second-${tag}@example.com`];
    const firstContact = await addContact(keys.account_id, contactFields(type.id, first), {});
    const secondContact = await addContact(keys.account_id, contactFields(type.id, second), {});
    const send = await readySend(keys.account_id, { recipient_id: [{ id: String(type.id), table: 'contacts_' }], subject: 'Spring sale', template_html: design });
    expect(await dispatchSingleSend(keys.account_id, send.utr, { pageSize: 1, shouldYield: () => true })).toBe('yielded');
    await localQueueIdle();
    expect((await mailsTo(env.sink, [first, second])).length).toBe(1);

    // Act: the first contact is deleted and added back (a new contact, a higher id: on a later page of the send), then the send goes on.
    await call(keys, 'DELETE', 'contacts/delete', { query: { contact_id: firstContact.id } });
    const back = await addContact(keys.account_id, contactFields(type.id, first), {});
    expect(back.id).toBeGreaterThan(secondContact.id);
    expect(await dispatchSingleSend(keys.account_id, send.utr, { pageSize: 1 })).toBe('dispatched');
    await localQueueIdle();
    await env.sink.eventsIdle();

    // Assess: each address mailed once; the address added back lists nothing of the deleted contact's mail.
    const mails = await mailsTo(env.sink, [first, second]);
    expect(mails.map((mail) => mail.destination.to[0]).sort()).toEqual([first, second].sort());
    expect(await call(keys, 'GET', 'contacts/activity', { query: { contact_id: back.id } })).toEqual({ status: 200, body: { status: 'success', message: { activity: [], next_cursor: null } } });
    expect(await call(keys, 'GET', 'contacts/activity', { query: { contact_id: secondContact.id } })).toEqual({
      status: 200,
      body: { status: 'success', message: { activity: [{ event: 'delivered', ...mailLine(send.utr) }, { event: 'sent', ...mailLine(send.utr) }], next_cursor: null } },
    });
  });
});

describe('contacts/activity of a delivery run killed midway', () => {
  test('lists `sent` for every mail SES took before the run was killed', async () => {
    // Prepare: a running send and one queue message for four contacts.
    const keys = await newAccount();
    const type = await addContactType(keys.account_id, 'Readers');
    const tag = Math.random().toString(36).slice(2, 8);
    const emails = Array.from({ length: 4 }, (_, i) => `killed-${tag}-${i}@example.com`);
    const contacts = [];
    for (const email of emails) contacts.push(await addContact(keys.account_id, contactFields(type.id, email), {}));
    const send = await readySend(keys.account_id, { recipient_id: [{ id: String(type.id), table: 'contacts_' }], subject: 'Spring sale', template_html: design });
    expect(await startDispatch(keys.account_id, send.utr)).toBe(true);
    const message = {
      ref: { kind: 'single-send', accountId: keys.account_id, utr: send.utr },
      recipients: contacts.map((contact) => ({ email: contact.email, contactId: contact.id, fields: { first_name: 'Reader' } })),
      batchId: '0.0',
    };
    // SES answers the first two mails, takes the last two and never answers: the run dies there.
    proxy = await startSesProxy(env.sink, (n) => (n <= 2 ? 'forward' : 'forward-then-hang'));
    process.env.SES_ENDPOINT = proxy.endpoint;
    process.env.DELIVERY_CONCURRENCY = '2';
    resetConfig();
    resetSendingSettings();

    // Act: the run is abandoned once its last two calls reached SES, as a Lambda killed then would be.
    abandoned.push(deliverHandler(sqsEvent([message], 1)));
    await waitFor(() => proxy?.calls.length === 4, 10_000, 'the two unanswered SES calls');
    await env.sink.eventsIdle();

    // Assess: every mail that went is in its contact's activity, sent and delivered.
    expect((await mailsTo(env.sink, emails)).length).toBe(4);
    for (const contact of contacts) {
      expect(await call(keys, 'GET', 'contacts/activity', { query: { contact_id: contact.id } })).toEqual({
        status: 200,
        body: { status: 'success', message: { activity: [{ event: 'delivered', ...mailLine(send.utr) }, { event: 'sent', ...mailLine(send.utr) }], next_cursor: null } },
      });
    }
  });
});

describe('contacts/activity paging over timed entries and mails', () => {
  /**
   * One address's activity at chosen moments: the first send's mail (delivered a millisecond later)
   * and an open of it; the second send's mail with an open and a click in the same millisecond as
   * its claim; a confirmed opt-in last.
   */
  async function timedWorld() {
    const keys = await newAccount();
    const type = await addContactType(keys.account_id, 'Readers');
    const email = `paged-${Math.random().toString(36).slice(2, 8)}@example.com`;
    const contact = await addContact(keys.account_id, contactFields(type.id, email), {});
    const sends = [await readySend(keys.account_id, { subject: 'First' }), await readySend(keys.account_id, { subject: 'Second' })];
    const [one, two] = sends.map((send): SendRef => ({ kind: 'single-send', accountId: keys.account_id, utr: send.utr })) as [SendRef, SendRef];
    const base = Math.floor(Date.now() / 1000) * 1000;
    const at = (ms: number) => setClock(() => new Date(base + ms));
    at(0);
    await markRecipientSent((await claimRecipient(one, email, undefined, 'First')) as NonNullable<Awaited<ReturnType<typeof claimRecipient>>>);
    at(1);
    await recordSendEvent(one, 'delivered', email);
    at(1000);
    await recordActivity(keys.account_id, email, { event: 'open', ref: one });
    at(2000);
    await claimRecipient(two, email, undefined, 'Second');
    await recordActivity(keys.account_id, email, { event: 'open', ref: two });
    await recordActivity(keys.account_id, email, { event: 'click', ref: two, url: 'https://shop.example/sale' });
    at(3000);
    await recordOptInConfirmed(keys.account_id, email);
    resetClock();
    const time = (ms: number) => new Date(base + ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
    const line = (send: SendRef & { kind: 'single-send' }, subject: string) => ({ utr: send.utr, automation_utr: null, subject, url: null });
    const expected = [
      { event: 'opt_in_confirmed', utr: null, automation_utr: null, subject: null, url: null, at: time(3000) },
      // The same millisecond: in sort-key order, `sent` before `open` before `click`.
      { event: 'sent', ...line(two as SendRef & { kind: 'single-send' }, 'Second'), at: time(2000) },
      { event: 'open', ...line(two as SendRef & { kind: 'single-send' }, 'Second'), at: time(2000) },
      { event: 'click', ...line(two as SendRef & { kind: 'single-send' }, 'Second'), url: 'https://shop.example/sale', at: time(2000) },
      { event: 'open', ...line(one as SendRef & { kind: 'single-send' }, 'First'), at: time(1000) },
      { event: 'delivered', ...line(one as SendRef & { kind: 'single-send' }, 'First'), at: time(1) },
      { event: 'sent', ...line(one as SendRef & { kind: 'single-send' }, 'First'), at: time(0) },
    ];
    return { keys, contact, expected };
  }

  async function pages(world: Awaited<ReturnType<typeof timedWorld>>, limit: number): Promise<unknown[][]> {
    const read: unknown[][] = [];
    let cursor: string | undefined;
    do {
      const page = await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: world.contact.id, limit, ...(cursor ? { cursor } : {}) } });
      expect(page.status).toBe(200);
      const message = page.body.message as { activity: unknown[]; next_cursor: string | null };
      read.push(message.activity);
      cursor = message.next_cursor ?? undefined;
    } while (cursor && read.length < 20);
    return read;
  }

  test('one page holds every line, newest first, ties in sort-key order', async () => {
    const world = await timedWorld();
    expect(await call(world.keys, 'GET', 'contacts/activity', { query: { contact_id: world.contact.id } })).toEqual({
      status: 200,
      body: { status: 'success', message: { activity: world.expected, next_cursor: null } },
    });
  });

  test('pages of 1, 2 and 4 stored lines cross from timed entries to mails and back, each line once, a mail with its delivery', async () => {
    const world = await timedWorld();
    const [optIn, sentTwo, openTwo, clickTwo, openOne, deliveredOne, sentOne] = world.expected;
    expect(await pages(world, 1)).toEqual([[optIn], [sentTwo], [openTwo], [clickTwo], [openOne], [deliveredOne, sentOne]]);
    expect(await pages(world, 2)).toEqual([
      [optIn, sentTwo],
      [openTwo, clickTwo],
      [openOne, deliveredOne, sentOne],
    ]);
    expect(await pages(world, 4)).toEqual([
      [optIn, sentTwo, openTwo, clickTwo],
      [openOne, deliveredOne, sentOne],
    ]);
  });
});
