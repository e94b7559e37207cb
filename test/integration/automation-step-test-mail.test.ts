// Test mails of one automation step (POST automations/schedule/test) through the handler on DynamoDB
// Local and the SES sink: the step's rendered mail with `[Test] ` before its subject, no statistics
// or ledger entry, a verified sender, and every refusal's exact body.
import { randomUUID } from 'node:crypto';
import { handler as testMailsHandler } from '../../functions/test-mails/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { addContact } from '../../shared/audience/contact-service';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { ledgerEntriesAmong } from '../../shared/ledger/repository';
import { addSender } from '../../shared/senders/repository';
import { automationWorld, addStep, createAutomation, detailsOf, schedulesOf, type AutomationWorld } from '../support/automations';
import { handlerCaller, multipart } from '../support/events';
import { place, startMailSink, stopMailSink } from '../support/senders';
import { contactFields, mailsTo } from '../support/sending';
import { indexed } from '../support/single-sends';

const design = '<!DOCTYPE html><html><head><title>Welcome</title></head><body><p>Welcome ((first_name)) of ((company_name))</p></body></html>';

const tester = () => `tester-${randomUUID()}@example.com`;

/** A draft automation of the world with one step (nothing enrols or mails it); the step's utr. */
async function draftStep(world: AutomationWorld, fields: Record<string, string | number> = {}): Promise<{ automationUtr: string; stepUtr: string }> {
  const automationUtr = await createAutomation(world);
  await addStep(world, automationUtr, { subject: 'Welcome ((first_name))', template_id: 1, template_html: design, ...fields });
  const [step] = await schedulesOf(world, automationUtr);
  return { automationUtr, stepUtr: step?.utr as string };
}

const call = handlerCaller(testMailsHandler);

const testStep = (world: AutomationWorld | undefined, fields: Record<string, string | number>) =>
  call(world?.keys, 'POST', 'automations/schedule/test', { body: multipart(fields) });

const sent = { status: 200, body: { status: 'success', message: 'Test Mail Sent' } };

describe('automations/schedule/test', () => {
  let sink: SesSink;
  let world: AutomationWorld;
  let stranger: AutomationWorld;

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
    world = await automationWorld();
    stranger = await automationWorld();
  }, 120_000);

  afterAll(async () => {
    await stopMailSink(sink);
  });

  it('mails the step with [Test] before its subject and sample values, counting nothing', async () => {
    const { automationUtr, stepUtr } = await draftStep(world);
    const [first, second] = [tester(), tester()];
    expect(await testStep(world, { schedule_id: stepUtr, ...indexed('emails', [first, second]) })).toEqual(sent);

    const [mail] = await mailsTo(sink, [first]);
    expect(mail?.subject).toBe('[Test] Welcome Jane');
    expect(mail?.from).toContain('news@acme.example');
    expect(mail?.body.html).toContain('<p>Welcome Jane of Example Inc.</p>');
    expect(mail?.body.html).toContain('1 Main Street');
    expect(mail?.body.html).toContain('public/open?token=');
    expect(await mailsTo(sink, [second])).toHaveLength(1);

    // Their SES delivery events count nothing either.
    await sink.eventsIdle();
    const details = await detailsOf(world, automationUtr);
    expect([details.total_triggered, details.total_delivered, details.total_opens]).toEqual([0, 0, 0]);
    const ref = { kind: 'automation-step' as const, accountId: world.accountId, automationUtr, stepUtr };
    expect((await ledgerEntriesAmong(ref, [first, second])).size).toBe(0);
  });

  it('fills the placeholders from contact_id', async () => {
    const { stepUtr } = await draftStep(world);
    const contact = await addContact(world.accountId, contactFields(world.contactTypeId, `contact-${randomUUID()}@example.com`, { first_name: 'Priya' }), {});
    const address = tester();
    expect(await testStep(world, { schedule_id: stepUtr, 'emails[0]': address, contact_id: contact.id })).toEqual(sent);
    const [mail] = await mailsTo(sink, [address]);
    expect(mail?.subject).toBe('[Test] Welcome Priya');
    expect(mail?.body.html).toContain('<p>Welcome Priya of </p>');
  });

  it('answers Record not found for an unknown step and for another account’s step', async () => {
    const foreign = await draftStep(stranger);
    const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' } };
    const address = tester();
    expect(await testStep(world, { schedule_id: randomUUID(), 'emails[0]': address })).toEqual(notFound);
    expect(await testStep(world, { schedule_id: 'not-a-utr', 'emails[0]': address })).toEqual(notFound);
    expect(await testStep(world, { schedule_id: foreign.stepUtr, 'emails[0]': address })).toEqual(notFound);
    expect(await mailsTo(sink, [address])).toEqual([]);
  });

  it('names each invalid field', async () => {
    const invalid = (errors: Record<string, string[]>) => ({ status: 422, body: { status: 'failed', errors } });
    expect(await testStep(world, {})).toEqual(invalid({ schedule_id: ['The schedule id field is required.'], emails: ['The emails field is required.'] }));
    const { stepUtr } = await draftStep(world);
    expect(await testStep(world, { schedule_id: stepUtr, ...indexed('emails', Array.from({ length: 11 }, tester)) })).toEqual(
      invalid({ emails: ['The emails field must not have more than 10 items.'] }),
    );
    expect(await testStep(world, { schedule_id: stepUtr, 'emails[0]': tester(), contact_id: 999_999 })).toEqual(
      invalid({ contact_id: ['The selected contact id is invalid.'] }),
    );
  });

  it('refuses a step whose sender is not verified, and mails nothing', async () => {
    const unverified = await addSender(world.accountId, {
      from_name: 'Unconfirmed',
      from_email: `unconfirmed-${randomUUID()}@acme.example`,
      reply_to_email: 'support@acme.example',
      country_id: place.usa,
      state_id: place.california,
      city_id: place.losAngeles,
      zip_code: '90001',
      company_address: '1 Main Street',
      company_address2: null,
      nickname: 'Unconfirmed',
    });
    const { stepUtr } = await draftStep(world, { sender_id: unverified.id });
    const address = tester();
    expect(await testStep(world, { schedule_id: stepUtr, 'emails[0]': address })).toEqual({
      status: 422,
      body: { status: 'failed', errors: 'The sender of this automation schedule is not verified.' },
    });
    expect(await mailsTo(sink, [address])).toEqual([]);
  });

  it('answers 401 without credentials', async () => {
    expect(await testStep(undefined, { schedule_id: randomUUID(), 'emails[0]': tester() })).toEqual({
      status: 401,
      body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
    });
  });
});
