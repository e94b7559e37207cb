// `contacts/activity` through the handler on DynamoDB Local: a contact's sent, delivered, open, click,
// bounce, unsubscribe and opt-in entries after a real send, newest first and paged, not found for
// another account, and gone with the contact (delete and bulk delete).
import type { APIGatewayProxyStructuredResultV2, EventBridgeEvent } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as sesEventsHandler } from '../../functions/ses-events/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { activityPartition, recordOptInConfirmed } from '../../shared/contacts/activity';
import type { SesEventRecord } from '../../shared/feedback/ses-feedback';
import { encodeSendRef } from '../../shared/ledger/send-ref';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { queryAll } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { apiEvent, json } from '../support/events';
import { callContacts as call } from '../support/contacts';
import { asAReader, browserUserAgent, oneClick } from '../support/recipient-pages';
import { contactFields, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment, type SinkMail } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
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

  test('deleting a contact, alone or in a bulk delete, deletes its activity', async () => {
    const { keys, emails, ids } = await mailedWorld();
    const stored = (email: string) => queryAll({ partition: activityPartition(keys.account_id, email) });
    expect((await stored(emails.reader)).length).toBe(3);

    await call(keys, 'DELETE', 'contacts/delete', { query: { contact_id: ids.reader as number } });
    await call(keys, 'POST', 'contacts/bulk-delete', { body: json({ strIds: [ids.bouncer, ids.leaver] }) });

    expect(await Promise.all([stored(emails.reader), stored(emails.bouncer), stored(emails.leaver)])).toEqual([[], [], []]);
  });
});
