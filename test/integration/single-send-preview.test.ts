// Previews of a single send (GET single-send/preview) on DynamoDB Local: exactly the mail the contact
// receives (checked against a real delivery through the same path), sample values without a contact,
// and the not-found, validation and credential answers.
import { randomUUID } from 'node:crypto';
import { handler as testMailsHandler } from '../../functions/test-mails/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { addContact } from '../../shared/audience/contact-service';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { deliverToRecipients, resetSendBucket } from '../../shared/delivery/deliver';
import { contactFields as placeholderValues } from '../../shared/contacts/merge-fields';
import { singleSendContent } from '../../shared/delivery/send-content';
import { getSingleSend } from '../../shared/single-sends/repository';
import { startMailSink, stopMailSink } from '../support/senders';
import { contactFields, mailsTo } from '../support/sending';
import { handlerCaller } from '../support/events';
import { newSendingAccount, storedSingleSend, type SendingAccount } from '../support/single-sends';

const design =
  '<!DOCTYPE html><html><head><title>News</title></head><body><p>Hi ((full_name)) from ((city)), ((email))</p>' +
  '<p>Your plan: ((company_name))</p></body></html>';

/** A stored send of the account with the design above. */
const storedSend = (account: SendingAccount) => storedSingleSend(account, { templateHtml: design });

type Preview = { subject: string; html: string; text: string };

const call = handlerCaller(testMailsHandler);

async function preview(account: SendingAccount, query: Record<string, string | number>) {
  return call(account.keys, 'GET', 'single-send/preview', { query });
}

const previewOf = (reply: { body: Record<string, unknown> }) => (reply.body.message as { preview: Preview }).preview;

/** The token of a mail's links, read from its open pixel. */
function pixelToken(html: string): string {
  const token = /public\/open\?token=([A-Za-z0-9._~%-]+)/.exec(html)?.[1];
  if (!token) throw new Error('no open pixel');
  return token;
}

describe('single-send/preview', () => {
  let sink: SesSink;
  let account: SendingAccount;
  let stranger: SendingAccount;

  beforeAll(async () => {
    sink = await startMailSink();
    resetSendBucket();
    await seedReferenceData();
    account = await newSendingAccount('Previewer');
    stranger = await newSendingAccount('Stranger');
  }, 120_000);

  afterAll(async () => {
    await stopMailSink(sink);
  });

  it('is exactly the mail the contact receives: subject, HTML and text, footer, pixel and links', async () => {
    const ref = await storedSend(account);
    const email = `reader-${randomUUID()}@example.com`;
    const contact = await addContact(account.keys.account_id, contactFields(account.contactTypeId, email, { first_name: 'Priya', last_name: 'Nair', city: 'Kochi' }), {});

    const reply = await preview(account, { utr: ref.utr, contact_id: contact.id });
    expect(reply.status).toBe(200);
    expect(Object.keys(reply.body)).toEqual(['status', 'message']);
    expect(Object.keys(reply.body.message as object)).toEqual(['preview']);
    const shown = previewOf(reply);
    expect(Object.keys(shown)).toEqual(['subject', 'html', 'text']);

    // The same contact mailed for real through the delivery path.
    const content = singleSendContent(await getSingleSend(ref.accountId, ref.utr));
    const outcome = await deliverToRecipients(ref, content, [{ email, contactId: contact.id, fields: placeholderValues(contact) }]);
    expect(outcome.sent).toBe(1);
    const [mailed] = await mailsTo(sink, [email]);
    const mailedHtml = mailed?.body.html as string;

    // Only the token in the links differs (the preview's acts on nothing).
    const asMailed = (text: string) => text.split(pixelToken(shown.html)).join(pixelToken(mailedHtml));
    expect(shown.subject).toBe('Hello Priya');
    expect(shown.subject).toBe(mailed?.subject);
    expect(asMailed(shown.html)).toBe(mailedHtml);
    expect(asMailed(shown.text)).toBe(mailed?.body.text);
    expect(shown.html).toContain(`<p>Hi Priya Nair from Kochi, ${email}</p>`);
    expect(shown.html).toContain('Unsubscribe or manage your preferences');
    expect(shown.html).toContain('1 Main Street');
    expect(pixelToken(shown.html)).not.toBe(pixelToken(mailedHtml));
  });

  it('fills the placeholders with the documented sample values without contact_id', async () => {
    const ref = await storedSend(account);
    const reply = await preview(account, { utr: ref.utr });
    expect(reply.status).toBe(200);
    const shown = previewOf(reply);
    expect(shown.subject).toBe('Hello Jane');
    expect(shown.html).toContain('<p>Hi Jane Doe from Los Angeles, jane.doe@example.com</p>');
    expect(shown.html).toContain('<p>Your plan: Example Inc.</p>');
    expect(shown.text).toContain('Hi Jane Doe from Los Angeles, jane.doe@example.com');
  });

  it('answers Record not found for an unknown utr and for another account’s send', async () => {
    const foreign = await storedSend(stranger);
    const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' } };
    expect(await preview(account, { utr: randomUUID() })).toEqual(notFound);
    expect(await preview(account, { utr: foreign.utr })).toEqual(notFound);
  });

  it('refuses a missing utr and a contact of another account', async () => {
    const owner = await newSendingAccount('No contacts');
    const ref = await storedSend(owner);
    const foreign = await addContact(stranger.keys.account_id, contactFields(stranger.contactTypeId, `foreign-${randomUUID()}@example.com`), {});
    expect(await preview(owner, {})).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
    expect(await preview(owner, { utr: ref.utr, contact_id: foreign.id })).toEqual({
      status: 422,
      body: { status: 'failed', errors: { contact_id: ['The selected contact id is invalid.'] } },
    });
  });

  it('answers 401 without credentials', async () => {
    const ref = await storedSend(account);
    expect(await call(undefined, 'GET', 'single-send/preview', { query: { utr: ref.utr } })).toEqual({
      status: 401,
      body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
    });
  });
});
