// Test mails of a single send (POST single/send/test) through the handler on DynamoDB Local and the
// SES sink: the real rendered mail with `[Test] ` before its subject, sample or contact values, no
// statistics, no ledger entry, links that change nothing, a verified sender, the suppression list,
// the hourly budget, and every refusal's exact body.
import { randomUUID } from 'node:crypto';
import { handler as testMailsHandler } from '../../functions/test-mails/handler';
import { handler as suppressionsHandler } from '../../functions/suppressions/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { resetConfig } from '../../shared/config';
import { addContact } from '../../shared/audience/contact-service';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { ledgerEntriesAmong } from '../../shared/ledger/repository';
import { addBouncedAddress } from '../../shared/suppressions/bounces';
import { isGloballyUnsubscribed, isInUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { resetClock, setClock } from '../../shared/time';
import { apiEvent, authHeaders, handlerCaller, multipart, type Keys } from '../support/events';
import { oneClick, openPage, sendStatistics } from '../support/recipient-pages';
import { startMailSink, stopMailSink } from '../support/senders';
import { contactFields, headerOf, mailsTo, startSesProxy, type SinkMail } from '../support/sending';
import { addTestSender, indexed, newSendingAccount, storedSingleSend, type SendingAccount } from '../support/single-sends';

const design =
  '<!DOCTYPE html><html><head><title>News</title></head><body><p>Hi ((full_name)) from ((city))</p>' +
  '<p><a href="https://shop.example/offer?a=1&amp;b=2">Offer</a></p></body></html>';

/** A stored send of the account's verified sender (or the one given) with the design above. */
const storedSend = (account: SendingAccount, senderId = account.sender.id, fromEmail = account.sender.from_email) =>
  storedSingleSend(account, { templateHtml: design, senderId, fromEmail });

const tester = () => `tester-${randomUUID()}@example.com`;

async function sendTest(keys: Keys | undefined, fields: Record<string, string | number>) {
  const response = await testMailsHandler(
    apiEvent({ method: 'POST', path: 'single/send/test', body: multipart(fields), headers: keys ? authHeaders(keys) : {} }),
  );
  return { status: response.statusCode, body: JSON.parse(response.body ?? 'null') as unknown, retryAfter: response.headers?.['retry-after'] };
}

const sent = { status: 200, body: { status: 'success', message: 'Test Mail Sent' }, retryAfter: undefined };

function invalid(errors: Record<string, string[]>) {
  return { status: 422, body: { status: 'failed', errors }, retryAfter: undefined };
}

/** The token in a mail's open pixel (every recipient link of the mail carries the same one). */
function pixelToken(mail: SinkMail): string {
  const token = /public\/open\?token=([A-Za-z0-9._~%-]+)/.exec(mail.body.html ?? '')?.[1];
  if (!token) throw new Error('no open pixel in the mail');
  return decodeURIComponent(token);
}

describe('single/send/test', () => {
  let sink: SesSink;
  let account: SendingAccount;
  let stranger: SendingAccount;

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
    account = await newSendingAccount('Tester');
    stranger = await newSendingAccount('Stranger');
  }, 120_000);

  afterAll(async () => {
    await stopMailSink(sink);
  });

  it('mails the rendered send to each address with [Test] before the subject and sample values', async () => {
    const ref = await storedSend(account);
    const [first, second] = [tester(), tester()];
    expect(await sendTest(account.keys, { utr: ref.utr, ...indexed('emails', [first, second]) })).toEqual(sent);

    const [mail] = await mailsTo(sink, [first]);
    expect(await mailsTo(sink, [first])).toHaveLength(1);
    expect(mail?.subject).toBe('[Test] Hello Jane');
    expect(mail?.from).toContain(account.sender.from_email);
    expect(mail?.body.html).toContain('<p>Hi Jane Doe from Los Angeles</p>');
    // The footer, the preheader and the pixel, as every mail of the send has them.
    expect(mail?.body.html).toContain('1 Main Street');
    expect(mail?.body.html).toContain('Our spring issue');
    expect(mail?.body.html).toContain('public/open?token=');
    expect(mail?.body.text).toContain('Hi Jane Doe from Los Angeles');
    expect(headerOf(mail as SinkMail, 'List-Unsubscribe')).toContain('public/unsubscribe?token=');
    // Links go straight to their targets: a click in a test counts nowhere.
    expect(mail?.body.html).toContain('href="https://shop.example/offer?a=1&amp;b=2"');
    expect(mail?.body.html).not.toContain('public/click');
    expect(mail?.body.text).toContain('https://shop.example/offer?a=1&b=2');
    expect(mail?.body.text).not.toContain('public/click');
    expect((await mailsTo(sink, [second]))[0]?.subject).toBe('[Test] Hello Jane');
  });

  it('counts in no statistics, writes no ledger entry, and its links neither unsubscribe nor count an open', async () => {
    const ref = await storedSend(account);
    const address = tester();
    expect(await sendTest(account.keys, { utr: ref.utr, 'emails[0]': address })).toEqual(sent);
    const [mail] = await mailsTo(sink, [address]);
    const token = pixelToken(mail as SinkMail);
    // Every recipient link of the mail carries the one test token: headers, footer and pixel alike.
    expect(headerOf(mail as SinkMail, 'List-Unsubscribe')).toContain(`public/unsubscribe?token=${encodeURIComponent(token)}`);
    expect(mail?.body.html).toContain(`public/preferences?token=${encodeURIComponent(token)}`);

    const pixel = await openPage('public/open', token);
    expect(pixel.statusCode).toBe(200);
    expect(pixel.headers?.['content-type']).toBe('image/gif');
    expect((await openPage('public/preferences', token)).statusCode).toBe(400);
    expect((await oneClick(token)).statusCode).toBe(400);

    expect(await isGloballyUnsubscribed(ref.accountId, address)).toBe(false);
    expect(await isInUnsubscribeGroup(ref.accountId, account.groupId, address)).toBe(false);
    // SES delivered the test mail; its delivery event counts nothing either.
    await sink.eventsIdle();
    expect(await sendStatistics(ref)).toEqual({ triggered: 0, delivered: 0, unique_opens: 0, total_opens: 0, bounces: 0, unsubscribes: 0 });
    expect((await ledgerEntriesAmong(ref, [address])).size).toBe(0);
  });

  it('fills the placeholders from contact_id and still mails only the given addresses', async () => {
    const ref = await storedSend(account);
    const contactEmail = `contact-${randomUUID()}@example.com`;
    const contact = await addContact(account.keys.account_id, contactFields(account.contactTypeId, contactEmail, { first_name: 'Priya', last_name: 'Nair', city: 'Kochi' }), {});
    const address = tester();
    expect(await sendTest(account.keys, { utr: ref.utr, 'emails[0]': address, contact_id: contact.id })).toEqual(sent);
    const [mail] = await mailsTo(sink, [address]);
    expect(mail?.subject).toBe('[Test] Hello Priya');
    expect(mail?.body.html).toContain('<p>Hi Priya Nair from Kochi</p>');
    expect(await mailsTo(sink, [contactEmail])).toEqual([]);
  });

  it('refuses another account’s contact as an invalid contact id and mails nothing', async () => {
    // Contact ids are per account: an account without contacts cannot hold the stranger's id.
    const owner = await newSendingAccount('No contacts');
    const ref = await storedSend(owner);
    const foreign = await addContact(stranger.keys.account_id, contactFields(stranger.contactTypeId, `foreign-${randomUUID()}@example.com`), {});
    const address = tester();
    expect(await sendTest(owner.keys, { utr: ref.utr, 'emails[0]': address, contact_id: foreign.id })).toEqual(
      invalid({ contact_id: ['The selected contact id is invalid.'] }),
    );
    expect(await mailsTo(sink, [address])).toEqual([]);
  });

  it('names each invalid field', async () => {
    const ref = await storedSend(account);
    expect(await sendTest(account.keys, {})).toEqual(invalid({ utr: ['The utr field is required.'], emails: ['The emails field is required.'] }));
    const eleven = Array.from({ length: 11 }, tester);
    expect(await sendTest(account.keys, { utr: ref.utr, ...indexed('emails', eleven) })).toEqual(invalid({ emails: ['The emails field must not have more than 10 items.'] }));
    expect(await sendTest(account.keys, { utr: ref.utr, ...indexed('emails', [tester(), 'not-an-address']) })).toEqual(
      invalid({ emails: ['The emails.1 field must be a valid email address.'] }),
    );
    expect(await sendTest(account.keys, { utr: ref.utr, 'emails[0]': tester(), contact_id: 'abc' })).toEqual(invalid({ contact_id: ['The contact id field must be an integer.'] }));
    expect(await mailsTo(sink, eleven)).toEqual([]);
  });

  it('answers Record not found for an unknown utr and for another account’s send', async () => {
    const foreign = await storedSend(stranger);
    const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' }, retryAfter: undefined };
    expect(await sendTest(account.keys, { utr: randomUUID(), 'emails[0]': tester() })).toEqual(notFound);
    const address = tester();
    expect(await sendTest(account.keys, { utr: foreign.utr, 'emails[0]': address })).toEqual(notFound);
    expect(await mailsTo(sink, [address])).toEqual([]);
  });

  it('refuses a send whose sender is not verified, and mails nothing', async () => {
    const unverified = await addTestSender(account.keys.account_id, { verified: false });
    const ref = await storedSend(account, unverified.id, unverified.from_email);
    const address = tester();
    expect(await sendTest(account.keys, { utr: ref.utr, 'emails[0]': address })).toEqual({
      status: 422,
      body: { status: 'failed', errors: 'The sender of this single send is not verified.' },
      retryAfter: undefined,
    });
    expect(await mailsTo(sink, [address])).toEqual([]);
  });

  it('answers 429 with Retry-After when SES throttles, and mails nothing', async () => {
    const ref = await storedSend(account);
    const address = tester();
    const proxy = await startSesProxy(sink, () => 'throttle');
    process.env.SES_ENDPOINT = proxy.endpoint;
    resetConfig();
    try {
      expect(await sendTest(account.keys, { utr: ref.utr, 'emails[0]': address })).toEqual({
        status: 429,
        body: { status: 'failed', errors: 'Mail sending is busy. Try again in a minute.' },
        retryAfter: '60',
      });
      expect(proxy.calls).toEqual(['throttle']);
    } finally {
      await proxy.stop();
      process.env.SES_ENDPOINT = sink.endpoint;
      resetConfig();
    }
    expect(await mailsTo(sink, [address])).toEqual([]);
  });

  it('refuses an address on the suppression list until it is deleted from it', async () => {
    const ref = await storedSend(account);
    const [fine, bounced] = [tester(), tester()];
    await addBouncedAddress(account.keys.account_id, bounced, 'bounce', 'General');
    expect(await sendTest(account.keys, { utr: ref.utr, ...indexed('emails', [fine, bounced]) })).toEqual(
      invalid({ emails: ['The emails.1 address is on the suppression list (it bounced or complained).'] }),
    );
    expect(await mailsTo(sink, [fine, bounced])).toEqual([]);

    const removed = await handlerCaller(suppressionsHandler)(account.keys, 'DELETE', 'suppressions/delete', { query: { email: bounced } });
    expect(removed.status).toBe(200);
    expect(await sendTest(account.keys, { utr: ref.utr, ...indexed('emails', [fine, bounced]) })).toEqual(sent);
    expect(await mailsTo(sink, [bounced])).toHaveLength(1);
  });

  it('answers 401 without credentials', async () => {
    const ref = await storedSend(account);
    expect(await sendTest(undefined, { utr: ref.utr, 'emails[0]': tester() })).toEqual({
      status: 401,
      retryAfter: undefined,
      body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
    });
  });
});

describe('the hourly budget of test mails', () => {
  let sink: SesSink;
  const start = new Date('2031-05-01T10:20:00Z');
  let offset = 0;
  // A second of its own for each request, so the per-second request limit never interferes.
  const at = (seconds: number) => {
    offset = seconds;
    setClock(() => new Date(start.getTime() + offset * 1000));
  };

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
  }, 120_000);

  afterEach(() => {
    resetClock();
    delete process.env.TEST_MAILS_PER_HOUR;
    resetConfig();
  });

  afterAll(async () => {
    await stopMailSink(sink);
  });

  it('refuses past the hour’s test mails with 429 and Retry-After, all addresses or none, and allows again next hour', async () => {
    process.env.TEST_MAILS_PER_HOUR = '3';
    resetConfig();
    const account = await newSendingAccount('Budget');
    const ref = await storedSend(account);
    at(0);
    expect(await sendTest(account.keys, { utr: ref.utr, ...indexed('emails', [tester(), tester()]) })).toEqual(sent);
    at(1);
    const refused = [tester(), tester()];
    expect(await sendTest(account.keys, { utr: ref.utr, ...indexed('emails', refused) })).toEqual({
      status: 429,
      body: { status: 'failed', errors: 'Too many test mails: at most 3 per hour per account.' },
      retryAfter: String(40 * 60 - 1),
    });
    expect(await mailsTo(sink, refused)).toEqual([]);
    at(2);
    expect(await sendTest(account.keys, { utr: ref.utr, 'emails[0]': tester() })).toEqual(sent);
    at(40 * 60);
    expect(await sendTest(account.keys, { utr: ref.utr, ...indexed('emails', refused) })).toEqual(sent);
    expect(await mailsTo(sink, refused)).toHaveLength(2);

    // Another account's budget is its own.
    const other = await newSendingAccount('Other');
    const otherRef = await storedSend(other);
    at(40 * 60 + 1);
    expect(await sendTest(other.keys, { utr: otherRef.utr, ...indexed('emails', [tester(), tester(), tester()]) })).toEqual(sent);
  });
});
