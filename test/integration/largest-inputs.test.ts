// The largest input each item takes, through the API on DynamoDB Local (which refuses an item past
// 400 KB as DynamoDB does): it is stored, or refused up front with 422, never a failed write (500).
// Text is in a character of three bytes (one UTF-16 unit), the most bytes a length limit lets through.
import { listAutomationSteps, readStepDesign } from '../../shared/automations/steps';
import { addCustomField } from '../../shared/custom-fields/repository';
import { findCountryByCode, seedReferenceData } from '../../shared/reference-data/repository';
import { getSingleSend } from '../../shared/single-sends/repository';
import { addStep, automationWorld, createAutomation } from '../support/automations';
import { newAccount } from '../support/accounts';
import { addType, callContacts, contactDetails, type Account } from '../support/contacts';
import { multipart } from '../support/events';
import { callSingleSends, newSendingAccount, sendFields } from '../support/single-sends';

const wide = (length: number) => '\u20ac'.repeat(length);
/** A design of exactly `kilobytes` KB that the design checks accept. */
const design = (kilobytes: number) => `<p>${'x'.repeat(kilobytes * 1024 - 7)}</p>`;

let us: { id: number };

beforeAll(async () => {
  await seedReferenceData();
  us = (await findCountryByCode('US')) as { id: number };
});

test('an automation step with a 350 KB design and its longest subject and preview is stored', async () => {
  const world = await automationWorld();
  const utr = await createAutomation(world, { automation_name: wide(255) });
  await addStep(world, utr, { subject: wide(998), preview_img: wide(255), template_html: design(350) });
  const [step] = await listAutomationSteps(world.accountId, utr);
  expect(step).toMatchObject({ subject: wide(998), preview_img: wide(255) });
  expect(await readStepDesign(world.accountId, utr, Number(step?.id))).toEqual({ template_json: null, template_html: design(350) });
});

test('a single send with a 300 KB design and its longest texts is stored', async () => {
  const account = await newSendingAccount();
  const created = await callSingleSends(account.keys, 'POST', 'single/send/create', {
    body: multipart(
      sendFields(account, {
        single_send_name: wide(255),
        subject: wide(255),
        preheader: wide(255),
        template_html: design(300),
        schedule_type: 1,
        schedule_date: '2099-01-01',
        schedule_time: '10:00:00',
      }),
    ),
  });
  expect(created.status).toBe(200);
  const utr = (created.body.message as { utr: string }).utr;
  expect(await getSingleSend(account.keys.account_id, utr)).toMatchObject({ single_send_name: wide(255), subject: wide(255), template_html: design(300) });
});

describe('a contact with custom values', () => {
  let keys: Account;
  let type: number;
  // 130 fields with names of 64 characters: each filled value takes about 3.2 KB of the contact's item.
  const names = Array.from({ length: 130 }, (_, i) => `field_${String(i).padStart(3, '0')}_${'n'.repeat(54)}`);
  const values = (from: number, to: number) => Object.fromEntries(names.slice(from, to).map((name) => [`custom_field[${name}]`, wide(1000)]));
  const tooLarge = { status: 422, body: { status: 'failed', errors: { custom_field: ['The contact must not be greater than 400 kilobytes with its custom fields.'] } } };

  beforeAll(async () => {
    keys = await newAccount('Wide');
    type = await addType(keys, 'Wide');
    for (const name of names) await addCustomField(keys.account_id, name, 'text');
  });

  test('is stored up to 400 KB, and refused with 422 past it, on add and on update', async () => {
    const add = (email: string, fields: Record<string, string>) =>
      callContacts(keys, 'POST', 'contacts/add', { body: multipart({ contact_type_id: type, email, country: us.id, ...fields }) });

    expect(await add('fits@example.com', values(0, 100))).toMatchObject({ status: 200 });
    expect(await add('past@example.com', values(0, 130))).toEqual(tooLarge);

    // The first contact of the account: id 1.
    const update = await callContacts(keys, 'POST', 'contacts/update', {
      body: multipart({ contact_id: 1, contact_type_id: type, email: 'fits@example.com', country: us.id, ...values(100, 130) }),
    });
    expect(update).toEqual(tooLarge);
    const stored = await contactDetails(keys, 1);
    expect(stored.email).toBe('fits@example.com');
    expect(Object.keys(stored.custom_field as object)).toHaveLength(100);
  });

  test('an import row that would make a contact too large is refused with its line, the others written', async () => {
    await callContacts(keys, 'POST', 'contacts/add', { body: multipart({ contact_type_id: type, email: 'full@example.com', country: us.id, ...values(0, 100) }) });
    const header = ['email', 'country', ...names.slice(100, 130)].join(',');
    const csv = [header, ['full@example.com', 'US', ...names.slice(100, 130).map(() => wide(1000))].join(','), 'other@example.com,US'].join('\n');

    const result = await callContacts(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: type, file: { filename: 'wide.csv', content: csv } }) });

    expect(result).toEqual({
      status: 200,
      body: {
        status: 'success',
        message: 'Imported Successfully',
        imported: 1,
        updated: 0,
        failed: 1,
        errors: [{ row: 2, messages: ['The contact must not be greater than 400 kilobytes with its custom fields.'] }],
        import_id: expect.any(Number),
      },
    });
  });
});
