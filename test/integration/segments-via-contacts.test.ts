// Segment membership following contacts changed through the contacts Lambda: add, update, delete,
// bulk delete and CSV import, each seen in segment/email/list and segment/list right after.
import { handler as contactsHandler } from '../../functions/contacts/handler';
import { handler as segmentsHandler } from '../../functions/segments/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { findCountryByCode, seedReferenceData } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, multipart, urlencoded, type Keys, parsed } from '../support/events';

type Account = Keys & { account_id: number; typeId: number };

let usId: number;

async function contacts(keys: Keys, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) {
  return parsed(await contactsHandler(apiEvent({ method, path, ...options, headers: authHeaders(keys) })));
}

async function segments(keys: Keys, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) {
  return parsed(await segmentsHandler(apiEvent({ method, path, ...options, headers: authHeaders(keys) })));
}

/** An account whose segment 1 holds the contacts of its type whose city is Berlin. */
async function accountWithSegment(): Promise<Account> {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Everyone');
  const form = { contact_type_id: type.id, segment_name: 'Berliners', 'select_field[0]': 'city', 'select_operator[0]': 'is', 'value[0]': 'berlin' };
  expect((await segments(keys, 'POST', 'segment/save', { body: multipart(form) })).status).toBe(200);
  return { ...keys, typeId: type.id };
}

function contactForm(keys: Account, email: string, city: string, extra: Record<string, string | number> = {}) {
  return multipart({ contact_type_id: keys.typeId, email, country: usId, city, first_name: 'Max', last_name: 'Planck', ...extra });
}

async function memberEmails(keys: Keys): Promise<string[]> {
  const { body } = await segments(keys, 'GET', 'segment/email/list', { query: { segment_id: 1 } });
  return (body.message as { contactEmails: { email: string }[] }).contactEmails.map((recipient) => recipient.email).sort();
}

async function count(keys: Keys): Promise<number | undefined> {
  const { body } = await segments(keys, 'GET', 'segment/list');
  return (body.message as { segments: { segment_emails_count: number }[] }).segments[0]?.segment_emails_count;
}

async function contactIdOf(keys: Keys, email: string): Promise<number> {
  const { body } = await contacts(keys, 'GET', 'contacts/list');
  return (body.message as { contacts: { id: number; email: string }[] }).contacts.find((contact) => contact.email === email)?.id as number;
}

describe('segment membership through the contacts Lambda', () => {
  beforeAll(async () => {
    await seedReferenceData();
    usId = ((await findCountryByCode('US')) as { id: number }).id;
  });

  it('adds a matching contact on contacts/add and drops it on contacts/update and contacts/delete', async () => {
    const keys = await accountWithSegment();
    expect((await contacts(keys, 'POST', 'contacts/add', { body: contactForm(keys, 'max@example.com', 'Berlin') })).status).toBe(200);
    expect((await contacts(keys, 'POST', 'contacts/add', { body: contactForm(keys, 'lise@example.com', 'Vienna') })).status).toBe(200);
    expect(await memberEmails(keys)).toEqual(['max@example.com']);
    expect(await count(keys)).toBe(1);

    const max = await contactIdOf(keys, 'max@example.com');
    const lise = await contactIdOf(keys, 'lise@example.com');
    await contacts(keys, 'POST', 'contacts/update', { body: contactForm(keys, 'max@example.com', 'Munich', { contact_id: max }) });
    await contacts(keys, 'POST', 'contacts/update', { body: contactForm(keys, 'lise@example.com', 'BERLIN', { contact_id: lise }) });
    expect(await memberEmails(keys)).toEqual(['lise@example.com']);

    expect((await contacts(keys, 'DELETE', 'contacts/delete', { query: { contact_id: lise } })).status).toBe(200);
    expect(await memberEmails(keys)).toEqual([]);
    expect(await count(keys)).toBe(0);
  });

  it('drops contacts removed by contacts/bulk-delete', async () => {
    const keys = await accountWithSegment();
    for (const email of ['a@example.com', 'b@example.com', 'c@example.com']) {
      await contacts(keys, 'POST', 'contacts/add', { body: contactForm(keys, email, 'Berlin') });
    }
    const ids = [await contactIdOf(keys, 'a@example.com'), await contactIdOf(keys, 'c@example.com')];
    expect((await contacts(keys, 'POST', 'contacts/bulk-delete', { body: urlencoded({ strIds: ids }) })).status).toBe(200);
    expect(await memberEmails(keys)).toEqual(['b@example.com']);
    expect(await count(keys)).toBe(1);
  });

  it('takes in matching rows of a CSV import, and lets them go when a re-import changes them', async () => {
    const keys = await accountWithSegment();
    const first = 'email,country,city\nx@example.com,US,Berlin\ny@example.com,US,Hamburg\nz@example.com,US,berlin\n';
    const upload = (csv: string) =>
      contacts(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: keys.typeId, file: { filename: 'contacts.csv', content: csv } }) });
    expect((await upload(first)).status).toBe(200);
    expect(await memberEmails(keys)).toEqual(['x@example.com', 'z@example.com']);
    expect((await upload('email,country,city\nx@example.com,US,Bonn\ny@example.com,US,Berlin\n')).status).toBe(200);
    expect(await memberEmails(keys)).toEqual(['y@example.com', 'z@example.com']);
    expect(await count(keys)).toBe(2);
  });
});
