// Contacts through the Lambda handler on DynamoDB Local: list, details, add, update, delete and bulk
// delete with exact bodies, email uniqueness, type counts, custom values and the contact-type cascade.
import { handler as segmentsHandler } from '../../functions/segments/handler';
import { handler as contactTypesHandler } from '../../functions/contact-types/handler';
import { handler as jobsHandler } from '../../functions/background-jobs/handler';
import { lambdaContext } from '../../infra/local/lambda-context';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { findCountryByCode, seedReferenceData } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { addField, addType, callContacts as call, contactCounts, contactDetails, deleteField, deleteType, listContacts, type Account } from '../support/contacts';
import { apiEvent, authHeaders, json, multipart, parsed, urlencoded } from '../support/events';
import { jobsSettled, runJobsInProcess } from '../support/jobs';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

let us: { id: number; name: string };
let germany: { id: number; name: string };

function form(fields: Record<string, string | number>) {
  return { email: 'ada@example.com', country: us.id, ...fields };
}

async function add(keys: Account, fields: Record<string, string | number>) {
  return call(keys, 'POST', 'contacts/add', { body: multipart(form(fields)) });
}

describe('contacts', () => {
  let owner: Account;
  let ownerType: number;

  beforeAll(async () => {
    await seedReferenceData();
    us = (await findCountryByCode('US')) as typeof us;
    germany = (await findCountryByCode('DE')) as typeof germany;
    owner = await newAccount('Owner');
    ownerType = await addType(owner, 'Everyone');
  });

  describe('contacts/add, contacts/details and contacts/list', () => {
    it('adds a contact and shows it in details with the country id as text', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Customers');
      const added = await add(keys, {
        contact_type_id: type,
        first_name: ' Ada ',
        last_name: 'Lovelace',
        email: 'Ada@Example.COM',
        alt_email: 'ada@home.example',
        state: 'California',
        city: 'San Francisco',
        address_line1: '1 Market St',
        address_line2: 'Floor 2',
        state_province_region: 'CA',
        postal_code: '94105',
      });
      expect(added).toEqual({ status: 200, body: { status: 'success', message: 'Contact Added Successfully' } });
      const details = await call(keys, 'GET', 'contacts/details', { query: { contact_id: 1 } });
      expect(details).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            contact: {
              id: 1,
              user_id: keys.account_id,
              contact_type_id: type,
              first_name: 'Ada',
              last_name: 'Lovelace',
              email: 'Ada@example.com',
              alt_email: 'ada@home.example',
              country: String(us.id),
              state: 'California',
              city: 'San Francisco',
              address_line1: '1 Market St',
              address_line2: 'Floor 2',
              state_province_region: 'CA',
              postal_code: '94105',
              custom_field: null,
              subscription_status: 'confirmed',
              confirmed_at: null,
              deleted_at: null,
              created_at: expect.stringMatching(timestamp),
              updated_at: expect.stringMatching(timestamp),
              fullname: 'Ada Lovelace',
            },
          },
        },
      });
      expect(Object.keys((details.body.message as { contact: object }).contact)).toEqual([
        'id', 'user_id', 'contact_type_id', 'first_name', 'last_name', 'email', 'alt_email', 'country', 'state', 'city',
        'address_line1', 'address_line2', 'state_province_region', 'postal_code', 'custom_field', 'subscription_status', 'confirmed_at', 'deleted_at', 'created_at', 'updated_at', 'fullname',
      ]);
    });

    it('lists contacts in id order with the country name and the contact type joined', async () => {
      const keys = await newAccount();
      const first = await addType(keys, 'First');
      const second = await addType(keys, 'Second');
      await add(keys, { contact_type_id: first, email: 'one@example.com', first_name: 'One' });
      await add(keys, { contact_type_id: second, email: 'two@example.com', last_name: 'Two', country: germany.id });
      const result = await call(keys, 'GET', 'contacts/list');
      expect(result.status).toBe(200);
      const contacts = (result.body.message as { contacts: Record<string, unknown>[] }).contacts;
      expect(contacts).toHaveLength(2);
      expect(contacts[0]).toEqual({
        id: 1,
        user_id: keys.account_id,
        contact_type_id: first,
        first_name: 'One',
        last_name: '',
        email: 'one@example.com',
        alt_email: null,
        country: us.name,
        state: '',
        city: '',
        address_line1: '',
        address_line2: '',
        state_province_region: '',
        postal_code: '',
        custom_field: null,
        subscription_status: 'confirmed',
        confirmed_at: null,
        deleted_at: null,
        created_at: expect.stringMatching(timestamp),
        updated_at: expect.stringMatching(timestamp),
        fullname: 'One',
        contact_type: { id: first, user_id: keys.account_id, name: 'First', double_opt_in: 0, opt_in_sender_id: null, deleted_at: null, created_at: expect.stringMatching(timestamp), updated_at: expect.stringMatching(timestamp) },
      });
      expect(contacts[1]).toMatchObject({ id: 2, country: 'Germany', fullname: 'Two', contact_type: { id: second, name: 'Second' } });
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'contacts/list')).toEqual({ status: 200, body: { status: 'success', message: { contacts: [], next_cursor: null } } });
    });

    it('takes custom values as form keys and as a JSON object, and shows them by name', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Custom');
      await addField(keys, 'age', 'number');
      await addField(keys, 'joined', 'datetime-local');
      await addField(keys, 'notes', 'text');
      await add(keys, { contact_type_id: type, 'custom_field[age]': '42', 'custom_field[joined]': '2024-05-01T09:30' });
      await call(keys, 'POST', 'contacts/add', {
        body: json({ contact_type_id: type, email: 'json@example.com', country: us.id, custom_field: { age: 7.5, notes: 'likes tea', joined: '' } }),
      });
      expect((await contactDetails(keys, 1)).custom_field).toEqual({
        age: { field_name: 'age', field_value: '42' },
        joined: { field_name: 'joined', field_value: '2024-05-01T09:30' },
      });
      expect((await contactDetails(keys, 2)).custom_field).toEqual({
        age: { field_name: 'age', field_value: '7.5' },
        notes: { field_name: 'notes', field_value: 'likes tea' },
        joined: { field_name: 'joined', field_value: null },
      });
    });

    it('lists every missing required field', async () => {
      const result = await call(owner, 'POST', 'contacts/add', { body: multipart({ first_name: 'Nobody' }) });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            contact_type_id: ['The contact type id field is required.'],
            email: ['The email field is required.'],
            country: ['The country field is required.'],
          },
        },
      });
    });

    it.each([
      [{ email: 'not-an-email' }, 'email', 'The email field must be a valid email address.'],
      [{ alt_email: 'also bad' }, 'alt_email', 'The alt email field must be a valid email address.'],
      [{ country: 'USA' }, 'country', 'The country field must be an integer.'],
      [{ country: 999999 }, 'country', 'The selected country is invalid.'],
      [{ contact_type_id: 999 }, 'contact_type_id', 'The selected contact type id is invalid.'],
      [{ contact_type_id: 'x' }, 'contact_type_id', 'The contact type id field must be an integer.'],
      [{ first_name: 'x'.repeat(256) }, 'first_name', 'The first name field must not be greater than 255 characters.'],
      [{ postal_code: 'x'.repeat(256) }, 'postal_code', 'The postal code field must not be greater than 255 characters.'],
    ])('refuses %j', async (fields, field, message) => {
      const result = await add(owner, { contact_type_id: ownerType, ...fields });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
    });

    it.each([
      ['custom_field[unknown]', 'x', 'custom_field.unknown', 'The custom field unknown does not exist.'],
      ['custom_field[score]', '12abc', 'custom_field.score', 'The score field must be a number.'],
      ['custom_field[seen]', '2024-13-01T10:00', 'custom_field.seen', 'The seen field must match the format Y-m-d\\TH:i.'],
      ['custom_field[seen]', '2024-01-01 10:00', 'custom_field.seen', 'The seen field must match the format Y-m-d\\TH:i.'],
      ['custom_field[bio]', 'x'.repeat(1001), 'custom_field.bio', 'The bio field must not be greater than 1000 characters.'],
    ])('refuses the custom value %s=%s', async (key, value, field, message) => {
      const keys = await newAccount();
      const type = await addType(keys, 'Typed');
      await addField(keys, 'score', 'number');
      await addField(keys, 'seen', 'datetime-local');
      await addField(keys, 'bio', 'text');
      const result = await add(keys, { contact_type_id: type, [key]: value });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
      expect(await listContacts(keys)).toEqual([]);
    });

    it('accepts seconds in a datetime-local value', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Typed');
      await addField(keys, 'seen', 'datetime-local');
      expect((await add(keys, { contact_type_id: type, 'custom_field[seen]': '2024-01-01T10:00:59' })).status).toBe(200);
    });

    it("refuses another account's contact type", async () => {
      const stranger = await newAccount();
      const result = await add(stranger, { contact_type_id: ownerType });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { contact_type_id: ['The selected contact type id is invalid.'] } } });
    });

    it('refuses an email the type already has, ignoring case, but allows it in another type', async () => {
      const keys = await newAccount();
      const first = await addType(keys, 'First');
      const second = await addType(keys, 'Second');
      await add(keys, { contact_type_id: first, email: 'dup@example.com' });
      const again = await add(keys, { contact_type_id: first, email: 'DUP@example.com' });
      expect(again).toEqual({ status: 422, body: { status: 'failed', errors: { email: ['The email has already been taken.'] } } });
      expect((await add(keys, { contact_type_id: second, email: 'dup@example.com' })).status).toBe(200);
      expect(await contactCounts(keys)).toEqual({ [first]: 1, [second]: 1 });
    });

    it('lets only one of concurrent adds of one email succeed', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Race');
      const results = await Promise.all(Array.from({ length: 6 }, () => add(keys, { contact_type_id: type, email: 'race@example.com' })));
      expect(results.filter((result) => result.status === 200)).toHaveLength(1);
      expect(await listContacts(keys)).toHaveLength(1);
      expect(await contactCounts(keys)).toEqual({ [type]: 1 });
    });
  });

  describe('contacts/details', () => {
    it.each([
      [{}, 'The contact id field is required.'],
      [{ contact_id: 'abc' }, 'The contact id field must be an integer.'],
    ])('refuses query %j', async (query, message) => {
      expect(await call(owner, 'GET', 'contacts/details', { query })).toEqual({ status: 422, body: { status: 'failed', errors: { contact_id: [message] } } });
    });

    it("answers Record Not Found for an unknown id and for another account's contact", async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Private');
      await add(keys, { contact_type_id: type, email: 'secret@example.com' });
      const stranger = await newAccount();
      const result = await call(stranger, 'GET', 'contacts/details', { query: { contact_id: 1 } });
      expect(result).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
      expect(await call(keys, 'GET', 'contacts/details', { query: { contact_id: 99 } })).toEqual(result);
      expect(await listContacts(stranger)).toEqual([]);
    });
  });

  describe('contacts/update', () => {
    it('replaces the fields, keeps created_at and custom values not given', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Customers');
      await addField(keys, 'age', 'number');
      await addField(keys, 'notes', 'text');
      await add(keys, { contact_type_id: type, first_name: 'Old', city: 'Paris', 'custom_field[age]': '30', 'custom_field[notes]': 'n' });
      const before = await contactDetails(keys, 1);
      const result = await call(keys, 'POST', 'contacts/update', {
        body: multipart({ contact_id: 1, contact_type_id: type, email: 'ada@example.com', country: germany.id, first_name: 'New', 'custom_field[age]': '31' }),
      });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Contact Updated Successfully' } });
      const after = await contactDetails(keys, 1);
      expect(after).toMatchObject({ first_name: 'New', city: '', country: String(germany.id), fullname: 'New', created_at: before.created_at });
      expect(after.custom_field).toEqual({ age: { field_name: 'age', field_value: '31' }, notes: { field_name: 'notes', field_value: 'n' } });
    });

    it('moves the email claim: the old email is free and the new one is taken', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Customers');
      await add(keys, { contact_type_id: type, email: 'old@example.com' });
      await add(keys, { contact_type_id: type, email: 'other@example.com' });
      const update = (id: number, email: string) => call(keys, 'POST', 'contacts/update', { body: multipart({ contact_id: id, contact_type_id: type, email, country: us.id }) });
      expect((await update(1, 'new@example.com')).status).toBe(200);
      expect(await update(2, 'NEW@example.com')).toEqual({ status: 422, body: { status: 'failed', errors: { email: ['The email has already been taken.'] } } });
      expect((await add(keys, { contact_type_id: type, email: 'old@example.com' })).status).toBe(200);
      expect((await update(1, 'New@Example.com')).status).toBe(200);
      expect((await contactDetails(keys, 1)).email).toBe('New@example.com');
    });

    it('moves a contact between types and its count with it', async () => {
      const keys = await newAccount();
      const first = await addType(keys, 'First');
      const second = await addType(keys, 'Second');
      await add(keys, { contact_type_id: first, email: 'mover@example.com' });
      const result = await call(keys, 'POST', 'contacts/update', { body: multipart({ contact_id: 1, contact_type_id: second, email: 'mover@example.com', country: us.id }) });
      expect(result.status).toBe(200);
      expect(await contactCounts(keys)).toEqual({ [first]: 0, [second]: 1 });
      expect((await add(keys, { contact_type_id: first, email: 'mover@example.com' })).status).toBe(200);
      expect((await add(keys, { contact_type_id: second, email: 'mover@example.com' })).status).toBe(422);
    });

    it('lists each missing field with the contact id', async () => {
      const result = await call(owner, 'POST', 'contacts/update', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            contact_id: ['The contact id field is required.'],
            contact_type_id: ['The contact type id field is required.'],
            email: ['The email field is required.'],
            country: ['The country field is required.'],
          },
        },
      });
    });

    it("answers Record Not Found for an unknown id and cannot change another account's contact", async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Kept');
      await add(keys, { contact_type_id: type, first_name: 'Kept' });
      const stranger = await newAccount();
      const strangerType = await addType(stranger, 'Theirs');
      const result = await call(stranger, 'POST', 'contacts/update', { body: multipart(form({ contact_id: 1, contact_type_id: strangerType, first_name: 'Hijacked' })) });
      expect(result).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
      expect((await contactDetails(keys, 1)).first_name).toBe('Kept');
    });
  });

  describe('contacts/delete', () => {
    it('deletes a contact, frees its email and counts it out of its type', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Customers');
      await add(keys, { contact_type_id: type });
      const result = await call(keys, 'DELETE', 'contacts/delete', { query: { contact_id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await listContacts(keys)).toEqual([]);
      expect(await contactCounts(keys)).toEqual({ [type]: 0 });
      expect((await add(keys, { contact_type_id: type })).status).toBe(200);
    });

    it("answers Record Not Found for an unknown, deleted or another account's contact", async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Customers');
      await add(keys, { contact_type_id: type });
      const stranger = await newAccount();
      const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
      expect(await call(stranger, 'DELETE', 'contacts/delete', { query: { contact_id: 1 } })).toEqual(notFound);
      await call(keys, 'DELETE', 'contacts/delete', { query: { contact_id: 1 } });
      expect(await call(keys, 'DELETE', 'contacts/delete', { query: { contact_id: 1 } })).toEqual(notFound);
    });

    it('needs the id', async () => {
      expect(await call(owner, 'DELETE', 'contacts/delete')).toEqual({ status: 422, body: { status: 'failed', errors: { contact_id: ['The contact id field is required.'] } } });
    });
  });

  describe('contacts/bulk-delete', () => {
    it('deletes every listed contact and keeps counts per type', async () => {
      const keys = await newAccount();
      const first = await addType(keys, 'First');
      const second = await addType(keys, 'Second');
      for (const [type, email] of [[first, 'a@example.com'], [first, 'b@example.com'], [second, 'c@example.com'], [second, 'd@example.com']] as const) {
        await add(keys, { contact_type_id: type, email });
      }
      const result = await call(keys, 'POST', 'contacts/bulk-delete', { body: urlencoded({ strIds: [1, 2, 3] }) });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect((await listContacts(keys)).map((contact) => contact.id)).toEqual([4]);
      expect(await contactCounts(keys)).toEqual({ [first]: 0, [second]: 1 });
    });

    it('deletes nothing when any id is unknown or belongs to another account', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Mine');
      await add(keys, { contact_type_id: type, email: 'mine@example.com' });
      const stranger = await newAccount();
      const strangerType = await addType(stranger, 'Theirs');
      await add(stranger, { contact_type_id: strangerType, email: 'theirs@example.com' });
      const result = await call(keys, 'POST', 'contacts/bulk-delete', { body: urlencoded({ strIds: [1, 2] }) });
      expect(result).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
      expect(await listContacts(keys)).toHaveLength(1);
      expect(await listContacts(stranger)).toHaveLength(1);
    });

    it('needs strIds', async () => {
      expect(await call(owner, 'POST', 'contacts/bulk-delete', { body: urlencoded({}) })).toEqual({
        status: 422,
        body: { status: 'failed', errors: { strIds: ['The str ids field is required.'] } },
      });
    });
  });

  describe('custom field deletion', () => {
    it('stops showing the values of a deleted field; a new field of the same name starts empty', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Customers');
      await addField(keys, 'plan', 'text');
      await add(keys, { contact_type_id: type, 'custom_field[plan]': 'gold' });
      expect((await deleteField(keys, 1)).status).toBe(200);
      expect((await contactDetails(keys, 1)).custom_field).toBeNull();
      expect(await add(keys, { contact_type_id: type, email: 'b@example.com', 'custom_field[plan]': 'x' })).toEqual({
        status: 422,
        body: { status: 'failed', errors: { 'custom_field.plan': ['The custom field plan does not exist.'] } },
      });
      await addField(keys, 'plan', 'number');
      expect((await contactDetails(keys, 1)).custom_field).toBeNull();
      expect((await listContacts(keys))[0]?.custom_field).toBeNull();
    });
  });

  describe('contact type deletion', () => {
    it('deletes every contact of the type, page after page, and leaves other types alone', async () => {
      const keys = await newAccount();
      const doomed = await addType(keys, 'Doomed');
      const kept = await addType(keys, 'Kept');
      const header = 'email,country\n';
      const rows = Array.from({ length: 120 }, (_, i) => `c${i}@example.com,US`).join('\n');
      const upload = (type: number, csv: string) => call(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: type, file: { filename: 'c.csv', content: csv } }) });
      expect((await upload(doomed, header + rows)).body).toMatchObject({ imported: 120 });
      expect((await upload(kept, `${header}c1@example.com,US\nkeep@example.com,US`)).body).toMatchObject({ imported: 2 });
      const result = await deleteType(keys, doomed);
      expect(result).toEqual({ status: 200, body: { status: 'success', errors: 'Deleted Successfully' } });
      const left = await listContacts(keys);
      expect(left.map((contact) => contact.email)).toEqual(['c1@example.com', 'keep@example.com']);
      expect(await contactCounts(keys)).toEqual({ [kept]: 2 });
      expect(await add(keys, { contact_type_id: doomed })).toEqual({
        status: 422,
        body: { status: 'failed', errors: { contact_type_id: ['The selected contact type id is invalid.'] } },
      });
    });
    it('closes a type to new contacts while its deletion job runs, and answers a repeated delete Record Not Found', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Interrupted');
      await add(keys, { contact_type_id: type, email: 'stays@example.com' });
      // The delete job waits at the gate: the type is closing, its contact not yet deleted.
      let open: () => void = () => {};
      const gate = new Promise<void>((resolve) => (open = resolve));
      const release = registerLocalConsumer('jobs', async (event) => {
        await gate;
        return jobsHandler(event, lambdaContext('background-jobs', 'gated'));
      });
      try {
        const deleting = parsed(await contactTypesHandler(apiEvent({ method: 'DELETE', path: 'contacts-type/delete', headers: authHeaders(keys), query: { contact_type_id: type } })));
        expect(deleting.status).toBe(200);
        const invalid = { status: 422, body: { status: 'failed', errors: { contact_type_id: ['The selected contact type id is invalid.'] } } };
        expect(await add(keys, { contact_type_id: type, email: 'late@example.com' })).toEqual(invalid);
        const csv = { filename: 'late.csv', content: 'email,country\nlate@example.com,US' };
        expect(await call(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: type, file: csv }) })).toEqual(invalid);
        expect((await listContacts(keys)).map((contact) => contact.email)).toEqual(['stays@example.com']);
        const again = parsed(await contactTypesHandler(apiEvent({ method: 'DELETE', path: 'contacts-type/delete', headers: authHeaders(keys), query: { contact_type_id: type } })));
        expect(again).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
        open();
        await jobsSettled(keys.account_id);
      } finally {
        release();
        runJobsInProcess();
      }
      expect(await listContacts(keys)).toEqual([]);
    });
  });

  describe('segment membership', () => {
    async function segmentCount(keys: Account): Promise<number> {
      const list = parsed(await segmentsHandler(apiEvent({ method: 'GET', path: 'segment/list', headers: authHeaders(keys) })));
      return (list.body.message as { segments: { segment_emails_count: number }[] }).segments[0]?.segment_emails_count as number;
    }

    it('keeps segment counts current through add, import, update, delete, bulk delete and the type cascade', async () => {
      const keys = await newAccount();
      const type = await addType(keys, 'Everyone');
      const rule = { contact_type_id: type, segment_name: 'In Kochi', 'select_field[0]': 'city', 'select_operator[0]': 'is', 'value[0]': 'Kochi' };
      expect(parsed(await segmentsHandler(apiEvent({ method: 'POST', path: 'segment/save', headers: authHeaders(keys), body: multipart(rule) }))).status).toBe(200);
      await add(keys, { contact_type_id: type, email: 'a@example.com', city: 'Kochi' });
      await add(keys, { contact_type_id: type, email: 'b@example.com', city: 'Kochi' });
      await add(keys, { contact_type_id: type, email: 'c@example.com', city: 'Pune' });
      expect(await segmentCount(keys)).toBe(2);
      const csv = 'email,country,city\nd@example.com,US,Kochi\nc@example.com,US,Kochi\ne@example.com,US,Kochi';
      await call(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: type, file: { filename: 'k.csv', content: csv } }) });
      expect(await segmentCount(keys)).toBe(5);
      await call(keys, 'POST', 'contacts/update', { body: multipart(form({ contact_id: 1, contact_type_id: type, email: 'a@example.com', city: 'Pune' })) });
      expect(await segmentCount(keys)).toBe(4);
      await call(keys, 'DELETE', 'contacts/delete', { query: { contact_id: 2 } });
      expect(await segmentCount(keys)).toBe(3);
      await call(keys, 'POST', 'contacts/bulk-delete', { body: urlencoded({ strIds: [3, 4] }) });
      expect(await segmentCount(keys)).toBe(1);
      await deleteType(keys, type);
      expect(await segmentCount(keys)).toBeUndefined();
    });

    it("deletes the type's segments with it, and leaves another type's segments alone", async () => {
      const keys = await newAccount();
      const [gone, kept] = [await addType(keys, 'Gone'), await addType(keys, 'Kept')];
      for (const [contact_type_id, segment_name] of [[gone, 'Gone Kochi'], [kept, 'Kept Kochi']] as const) {
        const rule = { contact_type_id, segment_name, 'select_field[0]': 'city', 'select_operator[0]': 'is', 'value[0]': 'Kochi' };
        expect(parsed(await segmentsHandler(apiEvent({ method: 'POST', path: 'segment/save', headers: authHeaders(keys), body: multipart(rule) }))).status).toBe(200);
      }
      await add(keys, { contact_type_id: gone, email: 'g@example.com', city: 'Kochi' });
      await add(keys, { contact_type_id: kept, email: 'k@example.com', city: 'Kochi' });

      await deleteType(keys, gone);

      const list = parsed(await segmentsHandler(apiEvent({ method: 'GET', path: 'segment/list', headers: authHeaders(keys) })));
      const segments = (list.body.message as { segments: { segment_name: string; segment_emails_count: number }[] }).segments;
      expect(segments.map((segment) => [segment.segment_name, segment.segment_emails_count])).toEqual([['Kept Kochi', 1]]);
    });
  });

  describe('credentials', () => {
    it.each(['contacts/list', 'contacts/details', 'contacts/csv-sample/download'])('answers 401 when the headers are missing (%s)', async (path) => {
      expect(await call(undefined, 'GET', path)).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('refuses a wrong secret', async () => {
      const stranger = await newAccount();
      expect(await call({ public_key: owner.public_key, secret_key: stranger.secret_key }, 'POST', 'contacts/add', { body: multipart(form({ contact_type_id: ownerType })) })).toEqual({
        status: 401,
        body: { status: 'failed', errors: 'Invalid credentials.' },
      });
    });
  });
});

describe('contacts/list paging', () => {
  it('pages with limit and cursor, each contact with its type, and refuses a tampered or foreign cursor', async () => {
    const [owner, stranger] = [await newAccount(), await newAccount()];
    const [first, second] = [await addType(owner, 'First'), await addType(owner, 'Second')];
    for (let i = 1; i <= 5; i++) await add(owner, { contact_type_id: i % 2 ? first : second, email: `person${i}@example.com` });
    const strangerType = await addType(stranger, 'Theirs');
    for (let i = 1; i <= 2; i++) await add(stranger, { contact_type_id: strangerType, email: `other${i}@example.com` });
    const list: ListCall = (keys, query) => call(keys, 'GET', 'contacts/list', { query });
    await expectFiveItemsToPage({ call: list, listName: 'contacts', owner, foreign: { call: list, keys: stranger } });
    const page = (await list(owner, { limit: 2 })).body.message as { contacts: { email: string; contact_type: { name: string } }[] };
    expect(page.contacts.map((contact) => [contact.email, contact.contact_type.name])).toEqual([
      ['person1@example.com', 'First'],
      ['person2@example.com', 'Second'],
    ]);
  });
});
