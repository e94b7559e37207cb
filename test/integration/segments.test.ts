// Segments through the Lambda handler on DynamoDB Local: list and save (exact bodies, validation) and credentials.
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { addCustomField } from '../../shared/custom-fields/repository';
import { newAccount } from '../support/accounts';
import { callSegments, listSegments, segmentContact as contact, segmentForm, type Rule } from '../support/segments';
import { json, type Keys, multipart, timestampPattern } from '../support/events';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = timestampPattern;
type Account = Keys & { account_id: number };

const call = callSegments;

describe('segments', () => {
  let owner: Account;
  let stranger: Account;
  let ownerType: number;

  beforeAll(async () => {
    owner = await newAccount('Owner');
    stranger = await newAccount('Stranger');
    ownerType = (await addContactType(owner.account_id, 'Everyone')).id;
    await addCustomField(owner.account_id, 'age', 'number');
    await addCustomField(owner.account_id, 'joined', 'datetime-local');
  });

  describe('segment/save and segment/list', () => {
    it('saves a segment and lists it with the spec fields and its recipient count', async () => {
      const keys = await newAccount();
      const type = await addContactType(keys.account_id, 'Customers');
      await addContact(keys.account_id, contact(type.id, 'ada@example.com', { city: 'Kochi' }), {});
      await addContact(keys.account_id, contact(type.id, 'bob@example.com', { city: 'Pune' }), {});
      const saved = await call(keys, 'POST', 'segment/save', { body: segmentForm(type.id, 'In Kochi', [['city', 'is', 'kochi']]) });
      const list = await call(keys, 'GET', 'segment/list');
      expect(saved).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect(list).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            segments: [
              {
                id: 1,
                user_id: keys.account_id,
                contact_type_id: type.id,
                segment_name: 'In Kochi',
                select_field: ['city'],
                select_operator: ['is'],
                value: ['kochi'],
                query_type: null,
                deleted_at: null,
                created_at: expect.stringMatching(timestamp),
                updated_at: expect.stringMatching(timestamp),
                segment_emails_count: 1,
                build_status: 'ready',
              },
            ],
            next_cursor: null,
          },
        },
      });
      expect(Object.keys((list.body.message as { segments: object[] }).segments[0] as object)).toEqual([
        'id', 'user_id', 'contact_type_id', 'segment_name', 'select_field', 'select_operator', 'value',
        'query_type', 'deleted_at', 'created_at', 'updated_at', 'segment_emails_count', 'build_status',
      ]);
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'segment/list')).toEqual({ status: 200, body: { status: 'success', message: { segments: [], next_cursor: null } } });
    });

    it('stores several conditions, canonical field names, operator phrases and a range in two keys as low,high', async () => {
      const keys = await newAccount();
      const type = await addContactType(keys.account_id, 'Leads');
      await addCustomField(keys.account_id, 'score', 'number');
      const body = multipart({
        contact_type_id: type.id,
        segment_name: 'Warm',
        'select_field[0]': 'SCORE',
        'select_operator[0]': 'Between',
        'value[0][0]': '10',
        'value[0][1]': '20',
        'select_field[1]': 'email',
        'select_operator[1]': 'is not empty',
      });
      expect((await call(keys, 'POST', 'segment/save', { body })).status).toBe(200);
      expect(await listSegments(keys)).toMatchObject([
        { select_field: ['score', 'email'], select_operator: ['between', 'is not empty'], value: ['10,20', ''] },
      ]);
    });

    it('accepts a JSON body with arrays', async () => {
      const keys = await newAccount();
      const type = await addContactType(keys.account_id, 'Leads');
      const body = json({ contact_type_id: type.id, segment_name: 'Gmail', select_field: ['email'], select_operator: ['ends with'], value: ['@gmail.com'] });
      expect(await call(keys, 'POST', 'segment/save', { body })).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
    });

    it('lists every missing field', async () => {
      const result = await call(owner, 'POST', 'segment/save', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            contact_type_id: ['The contact type id field is required.'],
            segment_name: ['The segment name field is required.'],
            select_field: ['The select field field is required.'],
            select_operator: ['The select operator field is required.'],
          },
        },
      });
    });

    it("refuses an unknown contact type, and another account's", async () => {
      // A fresh account has no contact types at all, so the stranger's type id can only be the stranger's.
      const keys = await newAccount();
      const strangerType = await addContactType(stranger.account_id, 'Theirs');
      for (const typeId of [9999, strangerType.id, 0]) {
        const result = await call(keys, 'POST', 'segment/save', { body: segmentForm(typeId, 'X', [['city', 'is', 'x']]) });
        expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { contact_type_id: ['The selected contact type id is invalid.'] } } });
      }
    });

    it.each<[string, Rule[], Record<string, string[]>]>([
      ['an unknown field', [['favourite_colour', 'is', 'red']], { 'select_field.0': ['The selected select field.0 is invalid.'] }],
      ['an unknown operator', [['city', 'is', 'x'], ['city', 'sounds like', 'x']], { 'select_operator.1': ['The selected select operator.1 is invalid.'] }],
      ['a missing value', [['city', 'contains']], { 'value.0': ['The value.0 field is required.'] }],
      ['a number field compared with text', [['age', 'greater than', 'old']], { 'value.0': ['The value.0 field must be a number.'] }],
      ['a date field compared with a non-date', [['joined', 'less than', '2024-02-30']], { 'value.0': ['The value.0 field must be a valid date.'] }],
      ['a range without two values', [['age', 'between', '18']], { 'value.0': ['The value.0 field must contain two values separated by a comma.'] }],
      ['a range with a non-number bound', [['age', 'between', '18,many']], { 'value.0': ['The value.0 field must be a number.'] }],
      ['a blank field name', [[' ', 'is', 'x']], { 'select_field.0': ['The select field.0 field is required.'] }],
    ])('refuses %s', async (_case, rules, errors) => {
      const result = await call(owner, 'POST', 'segment/save', { body: segmentForm(ownerType, 'Bad', rules) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors } });
    });

    it('refuses operators that do not line up with fields, and a segment name too long', async () => {
      const body = multipart({
        contact_type_id: ownerType,
        segment_name: 'x'.repeat(256),
        'select_field[0]': 'city',
        'select_field[1]': 'state',
        'select_operator[0]': 'is empty',
      });
      expect(await call(owner, 'POST', 'segment/save', { body })).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            segment_name: ['The segment name field must not be greater than 255 characters.'],
            select_operator: ['The select operator field must contain 2 items.'],
          },
        },
      });
    });

    it('refuses fields that are not arrays', async () => {
      const body = multipart({ contact_type_id: ownerType, segment_name: 'Flat', select_field: 'city', select_operator: 'is', value: 'x' });
      expect(await call(owner, 'POST', 'segment/save', { body })).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            select_field: ['The select field field must be an array.'],
            select_operator: ['The select operator field must be an array.'],
            value: ['The value field must be an array.'],
          },
        },
      });
    });

    it('does not need a value for is empty / is not empty', async () => {
      const result = await call(owner, 'POST', 'segment/save', { body: segmentForm(ownerType, 'No city', [['city', 'is empty']]) });
      expect(result.status).toBe(200);
    });

    it('never shows one account the segments of another', async () => {
      const keys = await newAccount();
      const type = await addContactType(keys.account_id, 'Mine');
      await call(keys, 'POST', 'segment/save', { body: segmentForm(type.id, 'Mine only', [['city', 'is', 'x']]) });
      const other = await newAccount();
      expect(await listSegments(other)).toEqual([]);
    });
  });

  describe('credentials', () => {
    it.each([
      ['GET', 'segment/list'],
      ['POST', 'segment/save'],
      ['DELETE', 'segment/delete'],
    ])('answers 401 with both messages when both headers are missing (%s %s)', async (method, path) => {
      expect(await call(undefined, method, path)).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('refuses a wrong secret', async () => {
      const result = await call({ public_key: owner.public_key, secret_key: stranger.secret_key }, 'GET', 'segment/list');
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
    });
  });
});

describe('segment/list paging', () => {
  it('pages with limit and cursor, and refuses a tampered or foreign cursor', async () => {
    const [owner, stranger] = [await newAccount(), await newAccount()];
    const ownerTypeId = (await addContactType(owner.account_id, 'Everyone')).id;
    const strangerTypeId = (await addContactType(stranger.account_id, 'Everyone')).id;
    for (let i = 1; i <= 5; i++) await call(owner, 'POST', 'segment/save', { body: segmentForm(ownerTypeId, `Segment ${i}`, [['city', 'is', `City ${i}`]]) });
    for (let i = 1; i <= 2; i++) await call(stranger, 'POST', 'segment/save', { body: segmentForm(strangerTypeId, `Theirs ${i}`, [['city', 'is', 'X']]) });
    const list: ListCall = (keys, query) => call(keys, 'GET', 'segment/list', { query });
    await expectFiveItemsToPage({ call: list, listName: 'segments', owner, foreign: { call: list, keys: stranger } });
  });
});
