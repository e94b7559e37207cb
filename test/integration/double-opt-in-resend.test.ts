// `contacts/resend-confirmation` through the handler on DynamoDB Local: a pending contact is owed its
// confirmation mail again and the mailer mails it (its button still confirms), within the hourly
// budget and waiting for an unverified sender like any confirmation mail; a mail still owed stays the
// one; one resend per contact an hour (429 with Retry-After); the refusals and their messages.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as contactsHandler } from '../../functions/contacts/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { runOptInMails } from '../../shared/audience/opt-in-mailer';
import { optInMailJobName } from '../../shared/audience/opt-in-schedule';
import { optInDueKey } from '../../shared/contacts/opt-in-due';
import { optInMailKey } from '../../shared/contacts/opt-in-outbox';
import { optInResendKey } from '../../shared/contacts/opt-in-resends';
import { resetConfig } from '../../shared/config';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { scheduledJobKey } from '../../shared/scheduling/keys';
import { deleteLocalJob } from '../../shared/scheduling/local-scheduler';
import { verifySender } from '../../shared/sender-verification/confirmation-service';
import { deleteSender, type Sender } from '../../shared/senders/repository';
import { db } from '../../shared/table/client';
import { getItem } from '../../shared/table/records';
import { currentTime, resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { addType, callContacts } from '../support/contacts';
import { apiEvent, authHeaders, multipart, parsed, timestampPattern, urlencoded, type Keys } from '../support/events';
import { browserUserAgent } from '../support/recipient-pages';
import { place, uniqueAddress } from '../support/senders';
import { mailsTo, startSendingEnvironment, unverifiedSender, verifiedSender, type SendingEnvironment, type SinkMail } from '../support/sending';
import { addOptInContact as addContact, contactOf, contactTypesCall as types, optInAddress, optInType } from '../support/opt-in';

const address = (name: string) => optInAddress(name, 'resend.example');

type Account = Keys & { account_id: number };

let env: SendingEnvironment;
/** The clock of the code under test runs ahead of the wall clock by this much; it only moves forward. */
let clockAheadMs = 0;
const minute = 60_000;
const hour = 60 * minute;

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
  setClock(() => new Date(Date.now() + clockAheadMs));
});

afterAll(async () => {
  resetClock();
  await env.stop();
});

function passTime(ms: number): void {
  clockAheadMs += ms;
}

/** The raw answer of a resend (its headers too), form-encoded as contacts/update takes its fields. */
async function resendRaw(keys: Keys | undefined, fields: Record<string, string | number>, encoding: 'multipart' | 'urlencoded' = 'multipart'): Promise<APIGatewayProxyStructuredResultV2> {
  return contactsHandler(
    apiEvent({ method: 'POST', path: 'contacts/resend-confirmation', body: encoding === 'multipart' ? multipart(fields) : urlencoded(fields), headers: keys ? authHeaders(keys) : {} }),
  );
}

async function resend(keys: Keys | undefined, fields: Record<string, string | number>, encoding: 'multipart' | 'urlencoded' = 'multipart') {
  return parsed(await resendRaw(keys, fields, encoding));
}

const queued = { status: 200, body: { status: 'success', message: 'Confirmation Mail Queued Successfully' } };
const refused = (message: string) => ({ status: 422, body: { status: 'failed', errors: { contact_id: [message] } } });
const alreadyConfirmed = refused('The contact has already confirmed its subscription.');
const noSender = refused("The contact's type has no opt-in sender to send the confirmation mail from.");
const tooSoon = { status: 429, body: { status: 'failed', errors: 'Please wait before requesting another confirmation mail for this contact.' } };

function tokenIn(mail: SinkMail): string {
  const link = (/href="([^"]*public\/opt-in\/confirm[^"]*)"/.exec(String(mail.body.html))?.[1] as string).replace(/&amp;/g, '&');
  return new URL(link).searchParams.get('token') as string;
}

async function pressButton(token: string): Promise<APIGatewayProxyStructuredResultV2> {
  return publicPages(
    apiEvent({
      method: 'POST',
      path: 'public/opt-in/confirm',
      body: { contentType: 'application/x-www-form-urlencoded', body: Buffer.from(`token=${encodeURIComponent(token)}`) },
      headers: { 'user-agent': browserUserAgent },
    }),
  );
}

/** An account whose double opt-in type's sender is verified, with one pending contact already mailed once. */
async function mailedPending(name: string): Promise<{ keys: Account; typeId: number; sender: Sender; id: number; email: string }> {
  const keys = await newAccount(name);
  const sender = await verifiedSender(keys.account_id, uniqueAddress());
  const typeId = await optInType(keys, sender.id);
  const email = address('ada');
  const id = await addContact(keys, typeId, email);
  expect(await runOptInMails(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
  return { keys, typeId, sender, id, email };
}

describe('contacts/resend-confirmation', () => {
  it('owes a pending contact its mail again, marks the account owing and books the mailer, which mails it; the button of the new mail confirms', async () => {
    const { keys, id, email } = await mailedPending('Resent');
    const mailer = optInMailJobName(keys.account_id);
    await deleteLocalJob(mailer);
    const marks = Number((await getItem(optInDueKey(keys.account_id)))?.marks ?? 0);
    expect(await getItem(optInMailKey(keys.account_id, id))).toBeUndefined();

    passTime(5 * minute);
    const at = currentTime().toISOString();
    expect(await resend(keys, { contact_id: id })).toEqual(queued);
    expect(await getItem(optInMailKey(keys.account_id, id))).toMatchObject({ contact_id: id, queued_at: expect.stringMatching(timestampPattern) });
    expect(await getItem(optInDueKey(keys.account_id))).toMatchObject({ marks: marks + 1, gsi1pk: expect.any(String) });
    const job = await getItem(scheduledJobKey(mailer));
    expect(job).toMatchObject({ target: 'opt-in-mail', due_at: expect.any(String) });
    expect(String(job?.due_at) >= at).toBe(true);
    // The contact item is not written by a resend.
    expect(await contactOf(keys, id)).toMatchObject({ subscription_status: 'pending', confirmed_at: null });

    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
    const mails = await mailsTo(env.sink, [email]);
    expect(mails.map((mail) => mail.subject)).toEqual(['Please confirm your subscription to Acme News', 'Please confirm your subscription to Acme News']);
    const pressed = await pressButton(tokenIn(mails[1] as SinkMail));
    expect(pressed.statusCode).toBe(200);
    expect(String(pressed.body)).toContain('<h1>Subscription confirmed</h1>');
    expect(await contactOf(keys, id)).toMatchObject({ subscription_status: 'confirmed', confirmed_at: expect.stringMatching(timestampPattern) });
    // Confirmed: nothing more to resend.
    passTime(hour);
    expect(await resend(keys, { contact_id: id })).toEqual(alreadyConfirmed);
  });

  it('takes the field urlencoded too', async () => {
    const { keys, id } = await mailedPending('Urlencoded');
    expect(await resend(keys, { contact_id: id }, 'urlencoded')).toEqual(queued);
  });

  it('is refused a second time within the hour (429 with Retry-After), and taken again once the hour is over', async () => {
    const { keys, typeId, id, email } = await mailedPending('Hourly');
    expect(await resend(keys, { contact_id: id })).toEqual(queued);
    expect(await runOptInMails(keys.account_id)).toMatchObject({ sent: 1 });

    const second = await resendRaw(keys, { contact_id: id });
    expect(parsed(second)).toEqual(tooSoon);
    expect(Number(second.headers?.['retry-after'])).toBeGreaterThanOrEqual(hour / 1000 - 1);
    expect(Number(second.headers?.['retry-after'])).toBeLessThanOrEqual(hour / 1000 + 1);
    passTime(59 * minute);
    const later = await resendRaw(keys, { contact_id: id });
    expect(parsed(later)).toEqual(tooSoon);
    expect(Number(later.headers?.['retry-after'])).toBeGreaterThanOrEqual(59);
    expect(Number(later.headers?.['retry-after'])).toBeLessThanOrEqual(61);
    // Refused: nothing more is owed.
    expect(await getItem(optInMailKey(keys.account_id, id))).toBeUndefined();

    passTime(Number(later.headers?.['retry-after']) * 1000);
    expect(await resend(keys, { contact_id: id })).toEqual(queued);
    expect(await runOptInMails(keys.account_id)).toMatchObject({ sent: 1 });
    expect(await mailsTo(env.sink, [email])).toHaveLength(3);
    // The pace is another contact's own: a second pending contact of the account is resent at once.
    const other = await addContact(keys, typeId, address('other'));
    await runOptInMails(keys.account_id);
    expect(await resend(keys, { contact_id: other })).toEqual(queued);
  });

  it('leaves a mail still owed as it is, answering success: one mail goes', async () => {
    const keys = await newAccount('Still owed');
    const sender = await unverifiedSender(keys.account_id, uniqueAddress());
    const typeId = await optInType(keys, sender.id);
    const email = address('waiting');
    const id = await addContact(keys, typeId, email);
    const owed = await getItem(optInMailKey(keys.account_id, id));
    expect(owed).toMatchObject({ contact_id: id });

    passTime(minute);
    expect(await resend(keys, { contact_id: id })).toEqual(queued);
    expect(await getItem(optInMailKey(keys.account_id, id))).toEqual(owed);
    await verifySender(keys.account_id, sender.id, sender.from_email);
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
    expect(await mailsTo(env.sink, [email])).toHaveLength(1);
  });

  it("mails a pending contact moved into another double opt-in type before its mail went from the new type's sender, with no resend", async () => {
    const keys = await newAccount('Moved early');
    const before = await verifiedSender(keys.account_id, uniqueAddress());
    const after = await verifiedSender(keys.account_id, uniqueAddress());
    const firstType = await optInType(keys, before.id, 'Leads');
    const secondType = await optInType(keys, after.id, 'Members');
    const email = address('moved-early');
    const id = await addContact(keys, firstType, email);
    const moved = await callContacts(keys, 'POST', 'contacts/update', { body: multipart({ contact_id: id, contact_type_id: secondType, email, country: place.usa }) });
    expect(moved.status).toBe(200);

    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
    const mails = await mailsTo(env.sink, [email]);
    expect(mails.map((mail) => mail.from)).toEqual([`Acme News <${after.from_email}>`]);
    expect((await pressButton(tokenIn(mails[0] as SinkMail))).statusCode).toBe(200);
    expect(await contactOf(keys, id)).toMatchObject({ contact_type_id: secondType, subscription_status: 'confirmed' });
  });

  it("settles, unsent, the mail of a pending contact moved into a type that does not ask for double opt-in", async () => {
    const keys = await newAccount('Moved out');
    const sender = await verifiedSender(keys.account_id, uniqueAddress());
    const firstType = await optInType(keys, sender.id, 'Leads');
    expect((await types(keys, 'POST', 'contacts-type/add', { body: multipart({ name: 'Plain' }) })).status).toBe(200);
    const list = await types(keys, 'GET', 'contacts-type');
    const plainType = Number((list.body.message as { contactTypes: { id: number; name: string }[] }).contactTypes.find((type) => type.name === 'Plain')?.id);
    const email = address('moved-out');
    const id = await addContact(keys, firstType, email);
    expect((await callContacts(keys, 'POST', 'contacts/update', { body: multipart({ contact_id: id, contact_type_id: plainType, email, country: place.usa }) })).status).toBe(200);

    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 0, settled: 1, waitingForSender: 0, deferred: 0 });
    expect(await mailsTo(env.sink, [email])).toEqual([]);
  });

  it('owes the mail afresh for a contact moved into another double opt-in type, whose earlier mail the mailer would settle unsent', async () => {
    const keys = await newAccount('Moved');
    const before = await unverifiedSender(keys.account_id, uniqueAddress());
    const after = await verifiedSender(keys.account_id, uniqueAddress());
    const firstType = await optInType(keys, before.id, 'Leads');
    const secondType = await optInType(keys, after.id, 'Members');
    const email = address('moved');
    const id = await addContact(keys, firstType, email);
    const moved = await callContacts(keys, 'POST', 'contacts/update', { body: multipart({ contact_id: id, contact_type_id: secondType, email, country: place.usa }) });
    expect(moved.status).toBe(200);
    expect(await contactOf(keys, id)).toMatchObject({ contact_type_id: secondType, subscription_status: 'pending' });

    expect(await resend(keys, { contact_id: id })).toEqual(queued);
    expect(await getItem(optInMailKey(keys.account_id, id))).toMatchObject({ contact_id: id, contact_type_id: secondType });
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
    expect((await mailsTo(env.sink, [email])).map((mail) => mail.from)).toEqual([`Acme News <${after.from_email}>`]);
  });

  it('waits for an unverified sender, and past the hourly budget for the next hour, like any confirmation mail', async () => {
    const { keys, typeId, sender, id, email } = await mailedPending('Waits');
    const other = await unverifiedSender(keys.account_id, uniqueAddress());
    expect((await types(keys, 'POST', 'contacts-type/update', { body: multipart({ id: typeId, name: 'Newsletter', opt_in_sender_id: other.id }) })).status).toBe(200);
    expect(await resend(keys, { contact_id: id })).toEqual(queued);
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 0, settled: 0, waitingForSender: 1, deferred: 0 });

    process.env.OPT_IN_MAILS_PER_HOUR = '1';
    resetConfig();
    try {
      // A minute into a clock hour, so that both mails fall in it: the first takes the hour's one place.
      passTime(hour - (currentTime().getTime() % hour) + minute);
      const spent = await newAccount('Spent');
      const spentSender = await verifiedSender(spent.account_id, uniqueAddress());
      const spentType = await optInType(spent, spentSender.id);
      const spentId = await addContact(spent, spentType, address('budget'));
      expect(await runOptInMails(spent.account_id)).toMatchObject({ sent: 1 });
      expect(await resend(spent, { contact_id: spentId })).toEqual(queued);
      expect(await runOptInMails(spent.account_id)).toEqual({ sent: 0, settled: 0, waitingForSender: 0, deferred: 1 });
      const nextHour = new Date((Math.floor(currentTime().getTime() / hour) + 1) * hour).toISOString();
      expect(await getItem(scheduledJobKey(optInMailJobName(spent.account_id)))).toMatchObject({ due_at: nextHour });
      expect(await getItem(optInMailKey(spent.account_id, spentId))).toMatchObject({ contact_id: spentId });
    } finally {
      delete process.env.OPT_IN_MAILS_PER_HOUR;
      resetConfig();
    }

    await verifySender(keys.account_id, other.id, other.from_email);
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
    expect((await mailsTo(env.sink, [email])).map((mail) => mail.from)).toEqual([`Acme News <${sender.from_email}>`, `Acme News <${other.from_email}>`]);
  });

  it("refuses a confirmed contact, and one whose type's double opt-in is off or whose opt-in sender is gone, writing nothing", async () => {
    const keys = await newAccount('Refusals');
    const sender = await verifiedSender(keys.account_id, uniqueAddress());
    const plainType = await addType(keys, 'Customers');
    const customer = await addContact(keys, plainType, address('customer'));
    expect(await resend(keys, { contact_id: customer })).toEqual(alreadyConfirmed);

    const typeId = await optInType(keys, sender.id);
    const pending = await addContact(keys, typeId, address('pending'));
    await runOptInMails(keys.account_id);
    expect((await types(keys, 'POST', 'contacts-type/update', { body: multipart({ id: typeId, name: 'Newsletter', double_opt_in: 0 }) })).status).toBe(200);
    expect(await resend(keys, { contact_id: pending })).toEqual(noSender);
    expect((await types(keys, 'POST', 'contacts-type/update', { body: multipart({ id: typeId, name: 'Newsletter', double_opt_in: 1 }) })).status).toBe(200);
    await deleteSender(keys.account_id, sender.id);
    expect(await resend(keys, { contact_id: pending })).toEqual(noSender);
    // Refusals take no resend of the hour and owe nothing.
    expect(await getItem(optInResendKey(keys.account_id, pending))).toBeUndefined();
    expect(await getItem(optInResendKey(keys.account_id, customer))).toBeUndefined();
    expect(await getItem(optInMailKey(keys.account_id, pending))).toBeUndefined();
  });

  it.each([
    [{}, 'The contact id field is required.'],
    [{ contact_id: 'abc' }, 'The contact id field must be an integer.'],
    [{ contact_id: 0 }, 'The contact id field must be at least 1.'],
  ])('refuses %j with its message', async (fields, message) => {
    const keys = await newAccount('Validation');
    expect(await resend(keys, fields)).toEqual(refused(message));
  });

  it("answers 404 for an unknown contact and for another account's, and 401 without or with wrong credentials", async () => {
    const { keys, id } = await mailedPending('Owner');
    const stranger = await newAccount('Stranger');
    const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
    expect(await resend(keys, { contact_id: 999_999 })).toEqual(notFound);
    expect(await resend(stranger, { contact_id: id })).toEqual(notFound);
    expect(await getItem(optInResendKey(stranger.account_id, id))).toBeUndefined();
    expect(await resend(undefined, { contact_id: id })).toEqual({
      status: 401,
      body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
    });
    expect(await resend({ public_key: keys.public_key, secret_key: stranger.secret_key }, { contact_id: id })).toEqual({
      status: 401,
      body: { status: 'failed', errors: 'Invalid credentials.' },
    });
    // None of these took the owner's resend of the hour.
    expect(await resend(keys, { contact_id: id })).toEqual(queued);
  });

  it('gives the hour back when the mail could not be owed: the retry is taken', async () => {
    const { keys, id } = await mailedPending('Failed write');
    // The outbox write fails as an unreachable table would, in the table client's own middleware.
    const client = db();
    const name = 'failOptInMailPut';
    client.middlewareStack.add(
      (next, context) => async (args) => {
        const input = args.input as { Item?: { entity?: unknown } };
        if (context.commandName === 'PutItemCommand' && input.Item?.entity === 'opt-in-mail') throw new Error('The table could not be reached');
        return next(args);
      },
      { step: 'initialize', name },
    );
    try {
      expect(await resend(keys, { contact_id: id })).toEqual({ status: 500, body: { status: 'failed', errors: 'Internal server error.' } });
    } finally {
      client.middlewareStack.remove(name);
    }
    expect(await getItem(optInResendKey(keys.account_id, id))).toBeUndefined();
    expect(await resend(keys, { contact_id: id })).toEqual(queued);
    expect(await getItem(optInMailKey(keys.account_id, id))).toMatchObject({ contact_id: id });
  });
});
