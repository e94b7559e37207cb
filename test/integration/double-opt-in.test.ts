// Double opt-in through the handlers on DynamoDB Local: the type's settings and their messages, a
// contact created pending (contacts/add, CSV, bulk upsert), its one confirmation mail from the opt-in
// sender (waiting while the sender is unverified and past the hourly budget), the page whose button
// (a POST; a GET confirms nothing) confirms it, and sends and automations that skip it until then.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as optInHandler } from '../../functions/opt-in-mail/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { runOptInMails } from '../../shared/audience/opt-in-mailer';
import { optInMailJobName } from '../../shared/audience/opt-in-schedule';
import { runDueSteps } from '../../shared/automation-runs/runner';
import { listEnrolments } from '../../shared/automations/enrolments';
import { activityPartition } from '../../shared/contacts/activity';
import { resetConfig } from '../../shared/config';
import { getDispatchState } from '../../shared/single-sends/progress';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { scheduledJobKey } from '../../shared/scheduling/keys';
import { verifySender } from '../../shared/sender-verification/confirmation-service';
import type { Sender } from '../../shared/senders/repository';
import { getItem, queryAll } from '../../shared/table/records';
import { addStep, automationWorld, call as automations, createAutomation } from '../support/automations';
import { callContacts } from '../support/contacts';
import { apiEvent, json, multipart, timestampPattern, type Keys } from '../support/events';
import { newAccount } from '../support/accounts';
import { settlingJobs } from '../support/jobs';
import { browserUserAgent } from '../support/recipient-pages';
import { place, uniqueAddress } from '../support/senders';
import { mailsTo, readySend, startSendingEnvironment, unverifiedSender, verifiedSender, type SendingEnvironment, type SinkMail } from '../support/sending';
import { addOptInContact as addContact, contactOf, contactTypesCall as types, optInAddress, optInType } from '../support/opt-in';

const address = (name: string) => optInAddress(name, 'optin.example');

type Account = Keys & { account_id: number };

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
  await seedReferenceData();
});

afterAll(async () => {
  await env.stop();
});

function linkIn(mail: SinkMail): string {
  return (/href="([^"]*public\/opt-in\/confirm[^"]*)"/.exec(String(mail.body.html))?.[1] as string).replace(/&amp;/g, '&');
}

function tokenOf(link: string): string {
  return new URL(link).searchParams.get('token') as string;
}

async function page(method: 'GET' | 'POST', token: string): Promise<APIGatewayProxyStructuredResultV2> {
  return publicPages(
    method === 'GET'
      ? apiEvent({ method, path: 'public/opt-in/confirm', query: { token }, headers: { 'user-agent': browserUserAgent } })
      : apiEvent({ method, path: 'public/opt-in/confirm', body: { contentType: 'application/x-www-form-urlencoded', body: Buffer.from(`token=${encodeURIComponent(token)}`) }, headers: { 'user-agent': browserUserAgent } }),
  );
}

describe('contacts-type double opt-in settings', () => {
  let keys: Account;
  let sender: Sender;

  beforeAll(async () => {
    keys = await newAccount('Settings');
    sender = await unverifiedSender(keys.account_id, uniqueAddress());
  });

  it('adds a double opt-in type and shows both fields in the list and the view; a type without them has them off', async () => {
    const id = await optInType(keys, sender.id, 'Consenting');
    await types(keys, 'POST', 'contacts-type/add', { body: multipart({ name: 'Plain' }) });
    const view = await types(keys, 'GET', 'contacts-type/view', { query: { contact_type_id: id } });
    expect(view).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: {
          contactType: {
            id,
            user_id: keys.account_id,
            name: 'Consenting',
            double_opt_in: 1,
            opt_in_sender_id: sender.id,
            deleted_at: null,
            created_at: expect.stringMatching(timestampPattern),
            updated_at: expect.stringMatching(timestampPattern),
          },
        },
      },
    });
    const list = (await types(keys, 'GET', 'contacts-type')).body.message as { contactTypes: Record<string, unknown>[] };
    expect(list.contactTypes.map(({ name, double_opt_in, opt_in_sender_id, contacts_count }) => ({ name, double_opt_in, opt_in_sender_id, contacts_count }))).toEqual([
      { name: 'Consenting', double_opt_in: 1, opt_in_sender_id: sender.id, contacts_count: 0 },
      { name: 'Plain', double_opt_in: 0, opt_in_sender_id: null, contacts_count: 0 },
    ]);
  });

  it.each([
    [{ double_opt_in: 2 }, { double_opt_in: ['The selected double opt in is invalid.'] }],
    [{ double_opt_in: 'yes' }, { double_opt_in: ['The double opt in field must be an integer.'] }],
    [{ double_opt_in: 1 }, { opt_in_sender_id: ['The opt in sender id field is required when double opt in is 1.'] }],
    [{ double_opt_in: 1, opt_in_sender_id: 'abc' }, { opt_in_sender_id: ['The opt in sender id field must be an integer.'] }],
    [{ double_opt_in: 1, opt_in_sender_id: 0 }, { opt_in_sender_id: ['The opt in sender id field must be at least 1.'] }],
    [{ double_opt_in: 1, opt_in_sender_id: 999_999 }, { opt_in_sender_id: ['The selected opt in sender id is invalid.'] }],
  ])('refuses %j on add with its message', async (fields, errors) => {
    const result = await types(keys, 'POST', 'contacts-type/add', { body: multipart({ name: 'Refused', ...fields }) });
    expect(result).toEqual({ status: 422, body: { status: 'failed', errors } });
  });

  it("refuses another account's sender", async () => {
    const stranger = await newAccount('Stranger');
    await unverifiedSender(stranger.account_id, uniqueAddress());
    // Sender ids count per account: the stranger's second sender is an id this account has not.
    const theirs = await unverifiedSender(stranger.account_id, uniqueAddress());
    const result = await types(keys, 'POST', 'contacts-type/add', { body: json({ name: 'Borrowed', double_opt_in: 1, opt_in_sender_id: theirs.id }) });
    expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { opt_in_sender_id: ['The selected opt in sender id is invalid.'] } } });
  });

  it('keeps the settings an update leaves out, turns double opt-in off and on, and asks for a sender only when there is none', async () => {
    const account = await newAccount('Updates');
    const own = await unverifiedSender(account.account_id, uniqueAddress());
    await types(account, 'POST', 'contacts-type/add', { body: multipart({ name: 'Later' }) });
    const viewOf = async () => (await types(account, 'GET', 'contacts-type/view', { query: { contact_type_id: 1 } })).body.message as { contactType: Record<string, unknown> };
    expect(await types(account, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'Later', double_opt_in: 1 }) })).toEqual({
      status: 422,
      body: { status: 'failed', errors: { opt_in_sender_id: ['The opt in sender id field is required when double opt in is 1.'] } },
    });
    expect(await types(account, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'Later', double_opt_in: 1, opt_in_sender_id: own.id }) })).toEqual({
      status: 200,
      body: { status: 'success', message: 'Updated Successfully' },
    });
    expect(await viewOf()).toMatchObject({ contactType: { name: 'Later', double_opt_in: 1, opt_in_sender_id: own.id } });
    await types(account, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'Renamed' }) });
    expect(await viewOf()).toMatchObject({ contactType: { name: 'Renamed', double_opt_in: 1, opt_in_sender_id: own.id } });
    await types(account, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'Renamed', double_opt_in: 0 }) });
    expect(await viewOf()).toMatchObject({ contactType: { double_opt_in: 0, opt_in_sender_id: own.id } });
    // The sender kept from before satisfies the requirement.
    expect((await types(account, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'Renamed', double_opt_in: 1 }) })).status).toBe(200);
  });
});

describe('a pending contact', () => {
  it('is mailed one confirmation once its sender is verified, confirms only by the button, and then shows confirmed with its activity', async () => {
    const keys = await newAccount('Pending');
    const sender = await unverifiedSender(keys.account_id, uniqueAddress());
    const typeId = await optInType(keys, sender.id);
    const email = address('ada');
    const id = await addContact(keys, typeId, email);
    expect(await contactOf(keys, id)).toMatchObject({ email, subscription_status: 'pending', confirmed_at: null });
    // Booked at once; it waits while the sender is unverified.
    expect(await getItem(scheduledJobKey(optInMailJobName(keys.account_id)))).toMatchObject({ target: 'opt-in-mail' });
    expect(await optInHandler({ accountId: keys.account_id })).toEqual({ sent: 0, settled: 0, waitingForSender: 1, deferred: 0 });
    expect(await mailsTo(env.sink, [email])).toEqual([]);

    await verifySender(keys.account_id, sender.id, sender.from_email);
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 1, settled: 0, waitingForSender: 0, deferred: 0 });
    // Owed once: a second run mails nothing.
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 0, settled: 0, waitingForSender: 0, deferred: 0 });
    const mails = await mailsTo(env.sink, [email]);
    expect(mails.map((mail) => ({ from: mail.from, subject: mail.subject, to: mail.destination.to }))).toEqual([
      { from: `Acme News <${sender.from_email}>`, subject: 'Please confirm your subscription to Acme News', to: [email] },
    ]);
    const token = tokenOf(linkIn(mails[0] as SinkMail));

    // Opening the link (a scanner does the same) shows the button and confirms nothing.
    const shown = await page('GET', token);
    expect(shown.statusCode).toBe(200);
    expect(String(shown.body)).toContain('<form method="post" action="confirm">');
    expect(String(shown.body)).toContain('Confirm my subscription</button>');
    expect(await contactOf(keys, id)).toMatchObject({ subscription_status: 'pending', confirmed_at: null });

    const pressed = await page('POST', token);
    expect(pressed.statusCode).toBe(200);
    expect(String(pressed.body)).toContain('<h1>Subscription confirmed</h1>');
    expect(await contactOf(keys, id)).toMatchObject({ subscription_status: 'confirmed', confirmed_at: expect.stringMatching(timestampPattern) });
    const activity = await callContacts(keys, 'GET', 'contacts/activity', { query: { contact_id: id } });
    expect(activity).toEqual({
      status: 200,
      body: { status: 'success', message: { activity: [{ event: 'opt_in_confirmed', utr: null, automation_utr: null, subject: null, url: null, at: expect.stringMatching(timestampPattern) }], next_cursor: null } },
    });
    // A second press says the same and writes nothing more.
    expect(String((await page('POST', token)).body)).toContain('<h1>Subscription confirmed</h1>');
    expect(await queryAll({ partition: activityPartition(keys.account_id, email) })).toHaveLength(1);
    // Opening the link again now says so, without a button.
    expect(String((await page('GET', token)).body)).not.toContain('<form');
  });

  it('refuses a forged link, and the link of a contact deleted or moved to another address since', async () => {
    const keys = await newAccount('Refused links');
    const sender = await verifiedSender(keys.account_id, uniqueAddress());
    const typeId = await optInType(keys, sender.id);
    const moved = address('moved');
    const deleted = address('deleted');
    const movedId = await addContact(keys, typeId, moved);
    const deletedId = await addContact(keys, typeId, deleted);
    await runOptInMails(keys.account_id);
    const movedToken = tokenOf(linkIn((await mailsTo(env.sink, [moved]))[0] as SinkMail));
    const deletedToken = tokenOf(linkIn((await mailsTo(env.sink, [deleted]))[0] as SinkMail));
    await callContacts(keys, 'POST', 'contacts/update', { body: multipart({ contact_id: movedId, contact_type_id: typeId, email: address('elsewhere'), country: place.usa }) });
    await callContacts(keys, 'DELETE', 'contacts/delete', { query: { contact_id: deletedId } });
    for (const token of [movedToken, deletedToken, `${movedToken.slice(0, -4)}AAAA`]) {
      for (const method of ['GET', 'POST'] as const) {
        const answer = await page(method, token);
        expect(answer.statusCode).toBe(400);
        expect(String(answer.body)).toContain('<h1>This link is not valid</h1>');
      }
    }
    expect(await contactOf(keys, movedId)).toMatchObject({ subscription_status: 'pending', confirmed_at: null });
  });

  it('is created pending by a CSV upload and a bulk upsert, while contacts that existed before keep confirmed', async () => {
    const keys = await newAccount('Imports');
    const sender = await verifiedSender(keys.account_id, uniqueAddress());
    await types(keys, 'POST', 'contacts-type/add', { body: multipart({ name: 'Imports' }) });
    const before = address('before');
    const beforeId = await addContact(keys, 1, before);
    await types(keys, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'Imports', double_opt_in: 1, opt_in_sender_id: sender.id }) });
    const fromCsv = address('csv');
    const fromJson = address('json');
    const csv = `email,first_name,country\n${fromCsv},Csv,US\n${before},Again,US\n`;
    const uploaded = await callContacts(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: 1, file: { filename: 'contacts.csv', content: csv } }) });
    expect(uploaded.body).toMatchObject({ status: 'success', imported: 1, updated: 1 });
    const upserted = await settlingJobs(callContacts)(keys, 'POST', 'contacts/bulk-upsert', { body: json({ contact_type_id: 1, contacts: [{ email: fromJson, country: place.usa }] }) });
    expect(upserted.status).toBe(200);
    const list = (await callContacts(keys, 'GET', 'contacts/list', { query: { limit: 100 } })).body.message as { contacts: Record<string, unknown>[] };
    expect(list.contacts.map(({ id, email, subscription_status, confirmed_at }) => ({ id, email, subscription_status, confirmed_at }))).toEqual([
      { id: beforeId, email: before, subscription_status: 'confirmed', confirmed_at: null },
      { id: expect.any(Number), email: fromCsv, subscription_status: 'pending', confirmed_at: null },
      { id: expect.any(Number), email: fromJson, subscription_status: 'pending', confirmed_at: null },
    ]);
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 2, settled: 0, waitingForSender: 0, deferred: 0 });
    expect((await mailsTo(env.sink, [fromCsv, fromJson, before])).map((mail) => mail.destination.to[0]).sort()).toEqual([fromCsv, fromJson].sort());
  });
});

describe('the hourly budget', () => {
  afterEach(() => {
    delete process.env.OPT_IN_MAILS_PER_HOUR;
    resetConfig();
  });

  it('mails up to the budget and books the rest for the next hour, never dropping one', async () => {
    process.env.OPT_IN_MAILS_PER_HOUR = '2';
    resetConfig();
    const keys = await newAccount('Budget');
    const sender = await verifiedSender(keys.account_id, uniqueAddress());
    const typeId = await optInType(keys, sender.id);
    const emails = [address('one'), address('two'), address('three')];
    for (const email of emails) await addContact(keys, typeId, email);
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 2, settled: 0, waitingForSender: 0, deferred: 1 });
    expect(await mailsTo(env.sink, emails)).toHaveLength(2);
    const nextHour = new Date((Math.floor(Date.now() / 3_600_000) + 1) * 3_600_000).toISOString();
    expect(await getItem(scheduledJobKey(optInMailJobName(keys.account_id)))).toMatchObject({ target: 'opt-in-mail', due_at: nextHour });
    // Still owed: a run within the same hour mails nothing more and keeps it.
    expect(await runOptInMails(keys.account_id)).toEqual({ sent: 0, settled: 0, waitingForSender: 0, deferred: 1 });
  });
});

describe('sends and automations', () => {
  it('skip a pending contact in a single send (counted skipped) until it confirms, then mail it', async () => {
    const keys = await newAccount('Sends');
    const sender = await verifiedSender(keys.account_id, uniqueAddress());
    const typeId = await optInType(keys, sender.id);
    const pending = address('pending');
    await addContact(keys, typeId, pending);
    // A contact confirmed before: its type had no double opt-in then.
    const confirmedType = (await types(keys, 'POST', 'contacts-type/add', { body: multipart({ name: 'Customers' }) })) && 2;
    const customer = address('customer');
    await addContact(keys, confirmedType, customer);
    const audience = [
      { id: String(typeId), table: 'contacts_' as const },
      { id: String(confirmedType), table: 'contacts_' as const },
    ];
    const first = await readySend(keys.account_id, { recipient_id: audience, sender_id: sender.id, from_sender: sender.from_email, subject: 'First' });
    await dispatchHandler({ accountId: keys.account_id, utr: first.utr });
    await localQueueIdle();
    expect((await mailsTo(env.sink, [pending, customer])).map((mail) => [mail.destination.to[0], mail.subject])).toEqual([[customer, 'First']]);
    expect(await getDispatchState(keys.account_id, first.utr)).toMatchObject({ sent: 1, skipped: 1, failed: 0 });

    await runOptInMails(keys.account_id);
    const token = tokenOf(linkIn((await mailsTo(env.sink, [pending]))[0] as SinkMail));
    await page('POST', token);
    const second = await readySend(keys.account_id, { recipient_id: audience, sender_id: sender.id, from_sender: sender.from_email, subject: 'Second' });
    await dispatchHandler({ accountId: keys.account_id, utr: second.utr });
    await localQueueIdle();
    expect((await mailsTo(env.sink, [pending])).map((mail) => mail.subject).sort()).toEqual(['Please confirm your subscription to Acme News', 'Second']);
    expect(await getDispatchState(keys.account_id, second.utr)).toMatchObject({ sent: 2, skipped: 0, failed: 0 });
  });

  it('enrol a pending contact in the live automations of its type only once it confirms', async () => {
    const world = await automationWorld();
    const { keys } = world;
    const updated = await types(keys, 'POST', 'contacts-type/update', { body: multipart({ id: world.contactTypeId, name: 'Newsletter', double_opt_in: 1, opt_in_sender_id: world.senderId }) });
    expect(updated.status).toBe(200);
    const utr = await createAutomation(world);
    await addStep(world, utr, { subject: 'Welcome' });
    expect((await automations(keys, 'GET', 'automations/set-live', { query: { utr } })).status).toBe(200);
    const email = address('welcome');
    await addContact(keys, world.contactTypeId, email);
    expect(await listEnrolments(world.accountId, utr)).toEqual([]);
    await runOptInMails(world.accountId);
    await page('POST', tokenOf(linkIn((await mailsTo(env.sink, [email]))[0] as SinkMail)));
    expect((await listEnrolments(world.accountId, utr)).map((enrolment) => enrolment.email)).toEqual([email]);
    await runDueSteps();
    expect((await mailsTo(env.sink, [email])).map((mail) => mail.subject).sort()).toEqual(['Please confirm your subscription to Acme News', 'Welcome']);
  });
});
