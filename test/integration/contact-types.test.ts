// Contact types through the Lambda handler on DynamoDB Local: every operation's exact bodies.
import { handler } from '../../functions/contact-types/handler';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, handlerCaller, json, type Keys, multipart, timestampPattern } from '../support/events';
import { settlingJobs } from '../support/jobs';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = timestampPattern;

const call = settlingJobs(handlerCaller(handler));

async function addType(keys: Keys, name: string) {
  return call(keys, 'POST', 'contacts-type/add', { body: multipart({ name }) });
}

async function listTypes(keys: Keys) {
  const { body } = await call(keys, 'GET', 'contacts-type');
  return (body.message as { contactTypes: Record<string, unknown>[] }).contactTypes;
}

describe('contact types', () => {
  let owner: Keys & { account_id: number };
  let stranger: Keys & { account_id: number };

  beforeAll(async () => {
    owner = await newAccount('Owner');
    stranger = await newAccount('Stranger');
  });

  describe('contacts-type/add and contacts-type', () => {
    it('adds a contact type and lists it with its count and the spec fields', async () => {
      const keys = await newAccount();
      // Act
      const added = await addType(keys, 'Newsletter');
      await addType(keys, 'Customers');
      const list = await call(keys, 'GET', 'contacts-type');
      // Assess
      expect(added).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect(list.status).toBe(200);
      const types = (list.body.message as { contactTypes: Record<string, unknown>[] }).contactTypes;
      expect(types).toHaveLength(2);
      expect(types[0]).toEqual({
        id: 1,
        user_id: keys.account_id,
        name: 'Newsletter',
        double_opt_in: 0,
        opt_in_sender_id: null,
        deleted_at: null,
        created_at: expect.stringMatching(timestamp),
        updated_at: expect.stringMatching(timestamp),
        contacts_count: 0,
      });
      expect(types[1]).toMatchObject({ id: 2, name: 'Customers' });
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'contacts-type')).toEqual({ status: 200, body: { status: 'success', message: { contactTypes: [], next_cursor: null } } });
    });

    it.each([
      [{}, 'The name field is required.'],
      [{ name: '   ' }, 'The name field is required.'],
      [{ name: 'a' }, 'The name field must be at least 2 characters.'],
      [{ name: 'x'.repeat(256) }, 'The name field must not be greater than 255 characters.'],
    ])('refuses %j with "%s"', async (fields, message) => {
      const result = await call(owner, 'POST', 'contacts-type/add', { body: multipart(fields) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { name: [message] } } });
    });

    it('refuses a name that is not text in a JSON body', async () => {
      const result = await call(owner, 'POST', 'contacts-type/add', { body: json({ name: 42 }) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { name: ['The name field must be a string.'] } } });
    });

    it('accepts JSON and urlencoded bodies as well as multipart', async () => {
      const keys = await newAccount();
      await call(keys, 'POST', 'contacts-type/add', { body: json({ name: 'From JSON' }) });
      await call(keys, 'POST', 'contacts-type/add', {
        body: { contentType: 'application/x-www-form-urlencoded', body: Buffer.from('name=From+form') },
      });
      expect((await listTypes(keys)).map((type) => type.name)).toEqual(['From JSON', 'From form']);
    });

    it('answers 400 for a malformed JSON body and stores nothing', async () => {
      const keys = await newAccount();
      const result = await call(keys, 'POST', 'contacts-type/add', {
        body: { contentType: 'application/json', body: Buffer.from('{"name": ') },
      });
      expect(result).toEqual({ status: 400, body: { status: 'failed', errors: 'Malformed JSON body.' } });
      expect(await listTypes(keys)).toEqual([]);
    });

    it('never shows one account the contact types of another', async () => {
      const keys = await newAccount();
      await addType(keys, 'Mine only');
      const other = await newAccount();
      expect(await listTypes(other)).toEqual([]);
    });
  });

  describe('contacts-type/view', () => {
    it('answers the contact type without a count field', async () => {
      const keys = await newAccount();
      await addType(keys, 'Leads');
      const result = await call(keys, 'GET', 'contacts-type/view', { query: { contact_type_id: 1 } });
      expect(result).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            contactType: {
              id: 1,
              user_id: keys.account_id,
              name: 'Leads',
              double_opt_in: 0,
              opt_in_sender_id: null,
              deleted_at: null,
              created_at: expect.stringMatching(timestamp),
              updated_at: expect.stringMatching(timestamp),
            },
          },
        },
      });
    });

    it('answers an unknown id in the validation shape', async () => {
      const result = await call(owner, 'GET', 'contacts-type/view', { query: { contact_type_id: 999 } });
      expect(result).toEqual({ status: 404, body: { status: 'failed', errors: { contact_type_id: ['The selected contact type id is invalid.'] } } });
    });

    it.each([
      [{}, 'The contact type id field is required.'],
      [{ contact_type_id: 'abc' }, 'The contact type id field must be an integer.'],
    ])('refuses query %j', async (query, message) => {
      const result = await call(owner, 'GET', 'contacts-type/view', { query });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { contact_type_id: [message] } } });
    });

    it("does not show another account's contact type", async () => {
      const keys = await newAccount();
      await addType(keys, 'Private');
      const result = await call(stranger, 'GET', 'contacts-type/view', { query: { contact_type_id: 1 } });
      expect(result.status).toBe(404);
      expect(JSON.stringify(result.body)).not.toContain('Private');
    });
  });

  describe('contacts-type/update', () => {
    it('renames a contact type and moves updated_at', async () => {
      const keys = await newAccount();
      await addType(keys, 'Old name');
      const before = (await listTypes(keys))[0] as Record<string, string>;
      const result = await call(keys, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'New name' }) });
      const after = (await listTypes(keys))[0] as Record<string, string>;
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Updated Successfully' } });
      expect(after.name).toBe('New name');
      expect(after.created_at).toBe(before.created_at);
      expect(String(after.updated_at) >= String(before.updated_at)).toBe(true);
    });

    it('lists each missing field', async () => {
      const result = await call(owner, 'POST', 'contacts-type/update', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: { status: 'failed', errors: { id: ['The id field is required.'], name: ['The name field is required.'] } },
      });
    });

    it('refuses a short name', async () => {
      const result = await call(owner, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'x' }) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { name: ['The name field must be at least 2 characters.'] } } });
    });

    it('answers Record Not Found for an unknown id', async () => {
      const result = await call(owner, 'POST', 'contacts-type/update', { body: multipart({ id: 999, name: 'Whatever' }) });
      expect(result).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
    });

    it("cannot rename another account's contact type", async () => {
      const keys = await newAccount();
      await addType(keys, 'Untouched');
      const result = await call(stranger, 'POST', 'contacts-type/update', { body: multipart({ id: 1, name: 'Hijacked' }) });
      expect(result).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
      expect((await listTypes(keys))[0]?.name).toBe('Untouched');
    });
  });

  describe('contacts-type/delete', () => {
    it("answers the spec's success body with the text in errors, and the type is gone", async () => {
      const keys = await newAccount();
      await addType(keys, 'Temporary');
      const result = await call(keys, 'DELETE', 'contacts-type/delete', { query: { contact_type_id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', errors: 'Deleted Successfully' } });
      expect(await listTypes(keys)).toEqual([]);
    });

    it('answers Record Not Found for an unknown id, and for one already deleted', async () => {
      const keys = await newAccount();
      await addType(keys, 'Once');
      await call(keys, 'DELETE', 'contacts-type/delete', { query: { contact_type_id: 1 } });
      const again = await call(keys, 'DELETE', 'contacts-type/delete', { query: { contact_type_id: 1 } });
      expect(again).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
    });

    it('does not reuse a deleted id', async () => {
      const keys = await newAccount();
      await addType(keys, 'First');
      await call(keys, 'DELETE', 'contacts-type/delete', { query: { contact_type_id: 1 } });
      await addType(keys, 'Second');
      expect((await listTypes(keys)).map((type) => type.id)).toEqual([2]);
    });

    it("cannot delete another account's contact type", async () => {
      const keys = await newAccount();
      await addType(keys, 'Kept');
      const result = await call(stranger, 'DELETE', 'contacts-type/delete', { query: { contact_type_id: 1 } });
      expect(result).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
      expect(await listTypes(keys)).toHaveLength(1);
    });

    it('needs the id', async () => {
      const result = await call(owner, 'DELETE', 'contacts-type/delete');
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { contact_type_id: ['The contact type id field is required.'] } } });
    });
  });

  describe('credentials', () => {
    it.each(['contacts-type', 'contacts-type/view'])('answers 401 with both messages when both headers are missing (%s)', async (path) => {
      const result = await call(undefined, 'GET', path);
      expect(result).toEqual({
        status: 401,
        body: {
          status: 'failed',
          errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] },
        },
      });
    });

    it('names only the missing header', async () => {
      const result = await call(undefined, 'GET', 'contacts-type', { headers: { publickey: owner.public_key } });
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: { SecretKey: ['The secret key field is required.'] } } });
    });

    it('refuses a wrong secret and an unknown public key alike', async () => {
      const wrongSecret = await call({ public_key: owner.public_key, secret_key: stranger.secret_key }, 'GET', 'contacts-type');
      const unknownKey = await call({ public_key: 'pk_unknown', secret_key: owner.secret_key }, 'GET', 'contacts-type');
      expect(wrongSecret).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
      expect(unknownKey).toEqual(wrongSecret);
    });

    it('checks credentials before reading the body', async () => {
      const result = await call(undefined, 'POST', 'contacts-type/add', { body: { contentType: 'application/json', body: Buffer.from('{') } });
      expect(result.status).toBe(401);
    });
  });

  it('answers 405 with an Allow header for a known path and the wrong method', async () => {
    const result = await handler(apiEvent({ method: 'DELETE', path: 'contacts-type/add', headers: authHeaders(owner) }));
    expect(result.statusCode).toBe(405);
    expect(result.headers?.allow).toBe('POST');
    expect(JSON.parse(result.body as string)).toEqual({ status: 'failed', errors: 'Method Not Allowed.' });
  });
});

describe('contacts-type paging', () => {
  it('pages with limit and cursor, and refuses a tampered or foreign cursor', async () => {
    const [owner, stranger] = [await newAccount(), await newAccount()];
    for (const name of ['Ann', 'Bea', 'Cid', 'Dot', 'Eve']) await addType(owner, name);
    for (const name of ['Xa', 'Yb']) await addType(stranger, name);
    const list: ListCall = (keys, query) => call(keys, 'GET', 'contacts-type', { query });
    await expectFiveItemsToPage({ call: list, listName: 'contactTypes', owner, foreign: { call: list, keys: stranger } });
  });
});
