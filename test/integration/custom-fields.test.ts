// Reserved and custom fields through the Lambda handler on DynamoDB Local: every operation's exact bodies.
import { handler } from '../../functions/custom-fields/handler';
import { reservedFieldNames } from '../../shared/custom-fields/reserved-fields';
import { newAccount } from '../support/accounts';
import { handlerCaller, json, type Keys, multipart, timestampPattern } from '../support/events';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = timestampPattern;

const call = handlerCaller(handler);

async function save(keys: Keys, field_name: string, field_type = 'text') {
  return call(keys, 'POST', 'custom-fields/save', { body: multipart({ field_name, field_type }) });
}

async function listFields(keys: Keys) {
  const { body } = await call(keys, 'GET', 'custom-fields');
  return (body.message as { customFields: Record<string, unknown>[] }).customFields;
}

describe('reserved and custom fields', () => {
  let owner: Keys & { account_id: number };

  beforeAll(async () => {
    owner = await newAccount('Owner');
  });

  describe('reserve-fields', () => {
    it('lists the reserved fields, owned by no account', async () => {
      const result = await call(owner, 'GET', 'reserve-fields');
      expect(result.status).toBe(200);
      const fields = (result.body.message as { reservedFields: Record<string, unknown>[] }).reservedFields;
      expect(fields.map((field) => field.field_name)).toEqual([...reservedFieldNames]);
      expect(fields[0]).toEqual({ id: 1, user_id: null, field_name: 'first_name', field_type: 'text', is_reserved: 1, created_at: null, updated_at: null });
      expect(Object.keys(result.body)).toEqual(['status', 'message']);
    });
  });

  describe('custom-fields/save and custom-fields', () => {
    it('adds fields of each type and lists them in order with the spec fields', async () => {
      const keys = await newAccount();
      const added = await save(keys, 'company_size', 'number');
      await save(keys, 'Birthday', 'datetime-local');
      await save(keys, 'notes2', 'text');
      expect(added).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      const fields = await listFields(keys);
      expect(fields).toEqual([
        {
          id: 1,
          user_id: keys.account_id,
          field_name: 'company_size',
          field_type: 'number',
          is_reserved: 0,
          created_at: expect.stringMatching(timestamp),
          updated_at: expect.stringMatching(timestamp),
        },
        expect.objectContaining({ id: 2, field_name: 'Birthday', field_type: 'datetime-local', is_reserved: 0 }),
        expect.objectContaining({ id: 3, field_name: 'notes2', field_type: 'text' }),
      ]);
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'custom-fields')).toEqual({ status: 200, body: { status: 'success', message: { customFields: [], next_cursor: null } } });
    });

    it('accepts a JSON body', async () => {
      const keys = await newAccount();
      const result = await call(keys, 'POST', 'custom-fields/save', { body: json({ field_name: 'age', field_type: 'number' }) });
      expect(result.body).toEqual({ status: 'success', message: 'Added Successfully' });
      expect((await listFields(keys)).map((field) => field.field_name)).toEqual(['age']);
    });

    it('lists each missing field', async () => {
      const result = await call(owner, 'POST', 'custom-fields/save', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: { status: 'failed', errors: { field_name: ['The field name field is required.'], field_type: ['The field type field is required.'] } },
      });
    });

    it.each([
      ['has space', 'The field name field format is invalid.'],
      ['dash-ed', 'The field name field format is invalid.'],
      ['émoji', 'The field name field format is invalid.'],
      ['x'.repeat(65), 'The field name field must not be greater than 64 characters.'],
      ['email', 'The field name may not be a reserved field name.'],
      ['First_Name', 'The field name may not be a reserved field name.'],
    ])('refuses the name %j', async (name, message) => {
      const result = await save(owner, name);
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { field_name: [message] } } });
    });

    it('refuses an unknown type', async () => {
      const result = await save(owner, 'valid_name', 'date');
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { field_type: ['The selected field type is invalid.'] } } });
    });

    it('refuses a name the account already has, ignoring case, and stores one field', async () => {
      const keys = await newAccount();
      await save(keys, 'Plan');
      const again = await save(keys, 'plan', 'number');
      expect(again).toEqual({ status: 422, body: { status: 'failed', errors: { field_name: ['The field name has already been taken.'] } } });
      expect(await listFields(keys)).toHaveLength(1);
    });

    it('lets only one of two concurrent requests for the same name succeed', async () => {
      const keys = await newAccount();
      const results = await Promise.all(Array.from({ length: 5 }, () => save(keys, 'race')));
      expect(results.filter((result) => result.status === 200)).toHaveLength(1);
      expect(results.filter((result) => result.status === 422)).toHaveLength(4);
      expect(await listFields(keys)).toHaveLength(1);
    });

    it('lets two accounts use the same name, each seeing only its own', async () => {
      const first = await newAccount();
      const second = await newAccount();
      await save(first, 'shared_name');
      expect((await save(second, 'shared_name')).status).toBe(200);
      expect(await listFields(first)).toEqual([expect.objectContaining({ user_id: first.account_id })]);
      expect(await listFields(second)).toEqual([expect.objectContaining({ user_id: second.account_id })]);
    });
  });

  describe('custom-fields/delete', () => {
    it('deletes a field and frees its name', async () => {
      const keys = await newAccount();
      await save(keys, 'temporary');
      const result = await call(keys, 'DELETE', 'custom-fields/delete', { query: { id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await listFields(keys)).toEqual([]);
      expect((await save(keys, 'temporary', 'number')).status).toBe(200);
      expect(await listFields(keys)).toEqual([expect.objectContaining({ id: 2, field_name: 'temporary', field_type: 'number' })]);
    });

    it('answers Record Not Found for an unknown id and for one already deleted', async () => {
      const keys = await newAccount();
      await save(keys, 'once');
      await call(keys, 'DELETE', 'custom-fields/delete', { query: { id: 1 } });
      expect(await call(keys, 'DELETE', 'custom-fields/delete', { query: { id: 1 } })).toEqual({
        status: 404,
        body: { status: 'failed', errors: 'Record Not Found' },
      });
    });

    it.each([
      [{}, 'The id field is required.'],
      [{ id: 'x' }, 'The id field must be an integer.'],
    ])('refuses query %j', async (query, message) => {
      expect(await call(owner, 'DELETE', 'custom-fields/delete', { query })).toEqual({ status: 422, body: { status: 'failed', errors: { id: [message] } } });
    });

    it("cannot delete another account's field", async () => {
      const keys = await newAccount();
      await save(keys, 'kept');
      const stranger = await newAccount();
      expect(await call(stranger, 'DELETE', 'custom-fields/delete', { query: { id: 1 } })).toEqual({
        status: 404,
        body: { status: 'failed', errors: 'Record Not Found' },
      });
      expect(await listFields(keys)).toHaveLength(1);
    });
  });

  describe('credentials', () => {
    it.each(['reserve-fields', 'custom-fields'])('answers 401 when the headers are missing (%s)', async (path) => {
      expect(await call(undefined, 'GET', path)).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('refuses a wrong secret', async () => {
      const stranger = await newAccount();
      const result = await call({ public_key: owner.public_key, secret_key: stranger.secret_key }, 'POST', 'custom-fields/save', {
        body: multipart({ field_name: 'x', field_type: 'text' }),
      });
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
    });
  });
});

describe('custom-fields paging', () => {
  it('pages with limit and cursor, and refuses a tampered or foreign cursor', async () => {
    const [owner, stranger] = [await newAccount(), await newAccount()];
    for (const name of ['f_one', 'f_two', 'f_three', 'f_four', 'f_five']) await save(owner, name);
    for (const name of ['x_one', 'x_two']) await save(stranger, name);
    const list: ListCall = (keys, query) => call(keys, 'GET', 'custom-fields', { query });
    await expectFiveItemsToPage({ call: list, listName: 'customFields', owner, foreign: { call: list, keys: stranger } });
  });
});
