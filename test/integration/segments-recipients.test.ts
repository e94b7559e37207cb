// Segment recipients through the Lambda handler: segment/email/list, store and delete, exact bodies,
// and how manual entries, matched contacts and exclusions combine.
import { handler } from '../../functions/segments/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { type ContactFields } from '../../shared/contacts/repository';
import { addContact, updateContact } from '../../shared/audience/contact-service';
import { newAccount } from '../support/accounts';
import { handlerCaller, type Keys, multipart, timestampPattern } from '../support/events';
import { settlingJobs } from '../support/jobs';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = timestampPattern;
type Account = Keys & { account_id: number };

const call = settlingJobs(handlerCaller(handler));

function contact(contactTypeId: number, email: string, city: string): ContactFields {
  return {
    contact_type_id: contactTypeId,
    first_name: 'Grace',
    last_name: 'Hopper',
    email,
    alt_email: null,
    country: '233',
    state: 'Virginia',
    city,
    address_line1: '7 Navy Yard',
    address_line2: '',
    state_province_region: '',
    postal_code: '22202',
  };
}

/** An account with one contact type and segment 1 = contacts whose city is Arlington. */
async function accountWithSegment(): Promise<Account & { typeId: number }> {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Everyone');
  const body = multipart({ contact_type_id: type.id, segment_name: 'Arlington', 'select_field[0]': 'city', 'select_operator[0]': 'is', 'value[0]': 'Arlington' });
  expect((await call(keys, 'POST', 'segment/save', { body })).status).toBe(200);
  return { ...keys, typeId: type.id };
}

async function store(keys: Keys, fields: Record<string, string | number>) {
  return call(keys, 'POST', 'segment/email/store', { body: multipart(fields) });
}

async function recipients(keys: Keys, segmentId = 1) {
  const { body } = await call(keys, 'GET', 'segment/email/list', { query: { segment_id: segmentId } });
  return (body.message as { contactEmails: Record<string, unknown>[] }).contactEmails;
}

async function count(keys: Keys) {
  const { body } = await call(keys, 'GET', 'segment/list');
  return (body.message as { segments: { segment_emails_count: number }[] }).segments[0]?.segment_emails_count;
}

describe('segment recipients', () => {
  let stranger: Account;

  beforeAll(async () => {
    stranger = await newAccount('Stranger');
  });

  describe('segment/email/store and segment/email/list', () => {
    it('stores a manual recipient and lists it with the spec fields next to a matched contact', async () => {
      const keys = await accountWithSegment();
      const matched = await addContact(keys.account_id, contact(keys.typeId, 'grace@example.com', 'Arlington'), {});
      const stored = await store(keys, { segment_id: 1, first_name: 'Alan', last_name: 'Turing', email: 'alan@example.com' });
      const list = await call(keys, 'GET', 'segment/email/list', { query: { segment_id: 1 } });
      expect(stored).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect(list).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            contactEmails: [
              {
                id: 2,
                user_id: keys.account_id,
                segment_id: 1,
                contact_id: null,
                first_name: 'Alan',
                last_name: 'Turing',
                email: 'alan@example.com',
                country: null,
                state: null,
                city: null,
                address_line1: null,
                created_at: expect.stringMatching(timestamp),
                updated_at: expect.stringMatching(timestamp),
                fullname: 'Alan Turing',
              },
              {
                id: 1,
                user_id: keys.account_id,
                segment_id: 1,
                contact_id: matched.id,
                first_name: 'Grace',
                last_name: 'Hopper',
                email: 'grace@example.com',
                country: '233',
                state: 'Virginia',
                city: 'Arlington',
                address_line1: '7 Navy Yard',
                created_at: expect.stringMatching(timestamp),
                updated_at: expect.stringMatching(timestamp),
                fullname: 'Grace Hopper',
              },
            ],
            // Recipients are listed in address order (the partition's key), so pages stay stable.
            next_cursor: null,
          },
        },
      });
      expect(await count(keys)).toBe(2);
    });

    it('lists every missing field', async () => {
      const keys = await accountWithSegment();
      expect(await store(keys, {})).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            segment_id: ['The segment id field is required.'],
            first_name: ['The first name field is required.'],
            last_name: ['The last name field is required.'],
            email: ['The email field is required.'],
          },
        },
      });
    });

    it('refuses an invalid address', async () => {
      const keys = await accountWithSegment();
      const result = await store(keys, { segment_id: 1, first_name: 'A', last_name: 'B', email: 'not-an-address' });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { email: ['The email field must be a valid email address.'] } } });
    });

    it("refuses an unknown segment and another account's", async () => {
      const keys = await accountWithSegment();
      const fresh = await newAccount();
      const invalid = { status: 422, body: { status: 'failed', errors: { segment_id: ['The selected segment id is invalid.'] } } };
      expect(await store(keys, { segment_id: 9, first_name: 'A', last_name: 'B', email: 'a@example.com' })).toEqual(invalid);
      expect(await store(fresh, { segment_id: 1, first_name: 'A', last_name: 'B', email: 'a@example.com' })).toEqual(invalid);
      expect(await recipients(keys)).toEqual([]);
    });

    it('keeps each address once: a second manual entry for it is refused, whatever its case', async () => {
      const keys = await accountWithSegment();
      await store(keys, { segment_id: 1, first_name: 'A', last_name: 'B', email: 'dup@example.com' });
      const again = await store(keys, { segment_id: 1, first_name: 'C', last_name: 'D', email: 'DUP@Example.com' });
      expect(again).toEqual({ status: 422, body: { status: 'failed', errors: { email: ['The email has already been taken.'] } } });
      expect(await count(keys)).toBe(1);
    });

    it('shows a matching contact over a manual entry of the same address, and the manual entry again when the contact leaves', async () => {
      const keys = await accountWithSegment();
      await store(keys, { segment_id: 1, first_name: 'Manual', last_name: 'Entry', email: 'same@example.com' });
      const person = await addContact(keys.account_id, contact(keys.typeId, 'Same@example.com', 'Arlington'), {});
      const both = await recipients(keys);
      await updateContact(keys.account_id, person.id, contact(keys.typeId, 'Same@example.com', 'Boston'), {});
      const manualAgain = await recipients(keys);
      expect(both).toMatchObject([{ id: 1, contact_id: person.id, first_name: 'Grace', email: 'Same@example.com' }]);
      expect(manualAgain).toMatchObject([{ id: 1, contact_id: null, first_name: 'Manual', email: 'same@example.com', city: null }]);
      expect(await count(keys)).toBe(1);
    });

    it('answers Record not found for an unknown segment and for another account\'s', async () => {
      await accountWithSegment();
      const notFound = { status: 404, body: { status: 'failed', errors: 'Record not found' } };
      expect(await call(stranger, 'GET', 'segment/email/list', { query: { segment_id: 1 } })).toEqual(notFound);
      expect(await call(stranger, 'GET', 'segment/email/list', { query: { segment_id: 12345 } })).toEqual(notFound);
    });

    it('needs an integer segment id', async () => {
      expect(await call(stranger, 'GET', 'segment/email/list')).toEqual({
        status: 422,
        body: { status: 'failed', errors: { segment_id: ['The segment id field is required.'] } },
      });
      expect(await call(stranger, 'GET', 'segment/email/list', { query: { segment_id: 'x' } })).toEqual({
        status: 422,
        body: { status: 'failed', errors: { segment_id: ['The segment id field must be an integer.'] } },
      });
    });
  });

  describe('segment/email/delete', () => {
    it('deletes a manual recipient and counts it out', async () => {
      const keys = await accountWithSegment();
      await store(keys, { segment_id: 1, first_name: 'A', last_name: 'B', email: 'gone@example.com' });
      await store(keys, { segment_id: 1, first_name: 'C', last_name: 'D', email: 'kept@example.com' });
      const result = await call(keys, 'DELETE', 'segment/email/delete', { query: { segment_recipient_id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect((await recipients(keys)).map((recipient) => recipient.email)).toEqual(['kept@example.com']);
      expect(await count(keys)).toBe(1);
    });

    it('excludes a matched contact: it stays out while it still matches', async () => {
      const keys = await accountWithSegment();
      const person = await addContact(keys.account_id, contact(keys.typeId, 'out@example.com', 'Arlington'), {});
      const [recipient] = await recipients(keys);
      await call(keys, 'DELETE', 'segment/email/delete', { query: { segment_recipient_id: Number(recipient?.id) } });
      await updateContact(keys.account_id, person.id, { ...contact(keys.typeId, 'out@example.com', 'Arlington'), first_name: 'Still' }, {});
      await call(keys, 'POST', 'segment/update', {
        body: multipart({ segment_id: 1, contact_type_id: keys.typeId, segment_name: 'A again', 'select_field[0]': 'city', 'select_operator[0]': 'starts with', 'value[0]': 'arl' }),
      });
      expect(await recipients(keys)).toEqual([]);
      expect(await count(keys)).toBe(0);
    });

    it("answers Record Not Found for an unknown recipient, one already deleted and another account's", async () => {
      const keys = await accountWithSegment();
      await store(keys, { segment_id: 1, first_name: 'A', last_name: 'B', email: 'mine@example.com' });
      const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
      expect(await call(stranger, 'DELETE', 'segment/email/delete', { query: { segment_recipient_id: 1 } })).toEqual(notFound);
      expect(await call(keys, 'DELETE', 'segment/email/delete', { query: { segment_recipient_id: 404 } })).toEqual(notFound);
      expect(await recipients(keys)).toHaveLength(1);
      await call(keys, 'DELETE', 'segment/email/delete', { query: { segment_recipient_id: 1 } });
      expect(await call(keys, 'DELETE', 'segment/email/delete', { query: { segment_recipient_id: 1 } })).toEqual(notFound);
    });

    it('needs the recipient id', async () => {
      expect(await call(stranger, 'DELETE', 'segment/email/delete')).toEqual({
        status: 422,
        body: { status: 'failed', errors: { segment_recipient_id: ['The segment recipient id field is required.'] } },
      });
    });
  });

  it.each([
    ['GET', 'segment/email/list'],
    ['POST', 'segment/email/store'],
    ['DELETE', 'segment/email/delete'],
  ])('answers 401 without credentials (%s %s)', async (method, path) => {
    expect(await call(undefined, method, path)).toEqual({
      status: 401,
      body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
    });
  });
});

describe('segment/email/list paging', () => {
  it("pages a segment's recipients in address order, and refuses another segment's cursor", async () => {
    const owner = await accountWithSegment();
    const other = multipart({ contact_type_id: owner.typeId, segment_name: 'Other', 'select_field[0]': 'city', 'select_operator[0]': 'is', 'value[0]': 'Boston' });
    expect((await call(owner, 'POST', 'segment/save', { body: other })).status).toBe(200);
    for (const name of ['eve', 'dan', 'cat', 'bob', 'amy']) await store(owner, { segment_id: 1, first_name: name, last_name: 'X', email: `${name}@example.com` });
    for (const name of ['yan', 'zoe']) await store(owner, { segment_id: 2, first_name: name, last_name: 'Y', email: `${name}@example.com` });
    const segmentList = (segmentId: number): ListCall => (keys, query) => call(keys, 'GET', 'segment/email/list', { query: { segment_id: segmentId, ...query } });
    await expectFiveItemsToPage({ call: segmentList(1), listName: 'contactEmails', owner, foreign: { call: segmentList(2), keys: owner } });
    expect((await recipients(owner)).map((recipient) => recipient.email)).toEqual(['amy@example.com', 'bob@example.com', 'cat@example.com', 'dan@example.com', 'eve@example.com']);
  });
});
