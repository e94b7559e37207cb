// Notification recipients through the Lambda handler on DynamoDB Local: every operation's exact bodies,
// the spec's odd email_owner message, and one entry per address.
import { handler } from '../../functions/notification-recipients/handler';
import { listNotificationRecipients } from '../../shared/notification-recipients/repository';
import { newAccount } from '../support/accounts';
import { handlerCaller, json, type Keys, multipart, timestampPattern, urlencoded } from '../support/events';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = timestampPattern;

type Account = Keys & { account_id: number };

const call = handlerCaller(handler);

async function save(keys: Keys, email_address: string, email_owner = 'Ops team') {
  return call(keys, 'POST', 'notification-recipient/save', { body: multipart({ email_address, email_owner }) });
}

async function notifications(keys: Keys) {
  const { body } = await call(keys, 'GET', 'notification-recipients');
  return (body.message as { notifications: Record<string, unknown>[] }).notifications;
}

async function addresses(keys: Keys) {
  return (await notifications(keys)).map((recipient) => recipient.email_address);
}

const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
const taken = { status: 422, body: { status: 'failed', errors: { email_address: ['The email address has already been taken.'] } } };

describe('notification recipients', () => {
  let owner: Account;
  let stranger: Account;

  beforeAll(async () => {
    owner = await newAccount('Owner');
    stranger = await newAccount('Stranger');
  });

  describe('notification-recipient/save and notification-recipients', () => {
    it('adds a recipient and lists it with the spec fields', async () => {
      const keys = await newAccount();
      const added = await save(keys, ' alerts@Example.COM ', 'Alex Admin');
      await save(keys, 'second@example.com', 'Sam');
      const list = await call(keys, 'GET', 'notification-recipients');
      expect(added).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect(list).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            notifications: [
              {
                id: 1,
                user_id: keys.account_id,
                email_address: 'alerts@example.com',
                email_owner: 'Alex Admin',
                created_at: expect.stringMatching(timestamp),
                updated_at: expect.stringMatching(timestamp),
              },
              expect.objectContaining({ id: 2, email_address: 'second@example.com', email_owner: 'Sam' }),
            ],
            next_cursor: null,
          },
        },
      });
      expect((await listNotificationRecipients(keys.account_id)).map((recipient) => recipient.email_address)).toEqual([
        'alerts@example.com',
        'second@example.com',
      ]);
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'notification-recipients')).toEqual({ status: 200, body: { status: 'success', message: { notifications: [], next_cursor: null } } });
    });

    it("gives the missing email_owner the spec's message, without a final period", async () => {
      const result = await call(owner, 'POST', 'notification-recipient/save', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: { email_address: ['The email address field is required.'], email_owner: ['The name field is required'] },
        },
      });
    });

    it.each([
      ['an invalid address', { email_address: 'not an address', email_owner: 'X' }, 'email_address', 'The email address field must be a valid email address.'],
      ['a list of addresses', { email_address: 'a@example.com, b@example.com', email_owner: 'X' }, 'email_address', 'The email address field must be a valid email address.'],
      ['a blank owner', { email_address: 'a@example.com', email_owner: '  ' }, 'email_owner', 'The name field is required'],
      ['an owner over 255 characters', { email_address: 'a@example.com', email_owner: 'o'.repeat(256) }, 'email_owner', 'The name field must not be greater than 255 characters.'],
    ])('refuses %s and stores nothing', async (_case, fields, field, message) => {
      const keys = await newAccount();
      const result = await call(keys, 'POST', 'notification-recipient/save', { body: multipart(fields) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
      expect(await notifications(keys)).toEqual([]);
    });

    it('refuses an owner that is not text in a JSON body', async () => {
      const result = await call(owner, 'POST', 'notification-recipient/save', { body: json({ email_address: 'a@example.com', email_owner: 7 }) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { email_owner: ['The name field must be a string.'] } } });
    });

    it('refuses an address that is already a recipient, in any letter case', async () => {
      const keys = await newAccount();
      await save(keys, 'team@example.com');
      expect(await save(keys, 'TEAM@example.com', 'Someone else')).toEqual(taken);
      expect(await addresses(keys)).toEqual(['team@example.com']);
    });

    it('adds an address once when concurrent requests add it', async () => {
      const keys = await newAccount();
      const results = await Promise.all(Array.from({ length: 5 }, () => save(keys, 'race@example.com')));
      expect(results.filter((result) => result.status === 200)).toHaveLength(1);
      expect(results.filter((result) => result.status === 422)).toEqual(Array(4).fill(taken));
      expect(await addresses(keys)).toEqual(['race@example.com']);
    });

    it('lets two accounts use the same address, and shows each only its own', async () => {
      const keys = await newAccount();
      const other = await newAccount();
      await save(keys, 'shared@example.com', 'Mine');
      expect(await save(other, 'shared@example.com', 'Theirs')).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect((await notifications(keys)).map((recipient) => recipient.email_owner)).toEqual(['Mine']);
      expect((await notifications(other)).map((recipient) => recipient.email_owner)).toEqual(['Theirs']);
    });
  });

  describe('notification-recipient/delete', () => {
    it('deletes a recipient, after which its address can be added again', async () => {
      const keys = await newAccount();
      await save(keys, 'gone@example.com');
      await save(keys, 'kept@example.com');
      const result = await call(keys, 'DELETE', 'notification-recipient/delete', { query: { id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await addresses(keys)).toEqual(['kept@example.com']);
      expect((await save(keys, 'gone@example.com')).status).toBe(200);
      expect(await addresses(keys)).toEqual(['kept@example.com', 'gone@example.com']);
    });

    it('answers Record Not Found for an unknown id and for one already deleted', async () => {
      const keys = await newAccount();
      await save(keys, 'once@example.com');
      await call(keys, 'DELETE', 'notification-recipient/delete', { query: { id: 1 } });
      expect(await call(keys, 'DELETE', 'notification-recipient/delete', { query: { id: 1 } })).toEqual(notFound);
      expect(await call(keys, 'DELETE', 'notification-recipient/delete', { query: { id: 404 } })).toEqual(notFound);
    });

    it.each([
      [{}, 'The id field is required.'],
      [{ id: 'one' }, 'The id field must be an integer.'],
    ])('refuses query %j', async (query, message) => {
      const result = await call(owner, 'DELETE', 'notification-recipient/delete', { query });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { id: [message] } } });
    });

    it("cannot delete another account's recipient", async () => {
      const keys = await newAccount();
      await save(keys, 'mine@example.com');
      expect(await call(stranger, 'DELETE', 'notification-recipient/delete', { query: { id: 1 } })).toEqual(notFound);
      expect(await addresses(keys)).toEqual(['mine@example.com']);
    });
  });

  describe('notification-recipient/bulk-delete', () => {
    it('deletes every listed recipient and frees their addresses', async () => {
      const keys = await newAccount();
      for (const address of ['a@example.com', 'b@example.com', 'c@example.com']) await save(keys, address);
      const result = await call(keys, 'POST', 'notification-recipient/bulk-delete', { body: urlencoded({ strIds: [1, 2] }) });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await addresses(keys)).toEqual(['c@example.com']);
      expect((await save(keys, 'a@example.com')).status).toBe(200);
    });

    it('deletes nothing when one id is unknown', async () => {
      const keys = await newAccount();
      await save(keys, 'a@example.com');
      expect(await call(keys, 'POST', 'notification-recipient/bulk-delete', { body: urlencoded({ strIds: [1, 2] }) })).toEqual(notFound);
      expect(await addresses(keys)).toEqual(['a@example.com']);
    });

    it("deletes nothing when one id is another account's", async () => {
      const keys = await newAccount();
      const other = await newAccount();
      await save(keys, 'a@example.com');
      await save(other, 'x@example.com');
      await save(other, 'y@example.com');
      expect(await call(keys, 'POST', 'notification-recipient/bulk-delete', { body: urlencoded({ strIds: [1, 2] }) })).toEqual(notFound);
      expect(await addresses(keys)).toEqual(['a@example.com']);
      expect(await addresses(other)).toEqual(['x@example.com', 'y@example.com']);
    });

    it('needs strIds', async () => {
      const result = await call(owner, 'POST', 'notification-recipient/bulk-delete', { body: urlencoded({}) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { strIds: ['The str ids field is required.'] } } });
    });
  });

  describe('credentials', () => {
    it('answers 401 with both messages when both headers are missing', async () => {
      const result = await call(undefined, 'GET', 'notification-recipients');
      expect(result).toEqual({
        status: 401,
        body: {
          status: 'failed',
          errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] },
        },
      });
    });

    it('refuses a wrong secret and stores nothing', async () => {
      const keys = await newAccount();
      const result = await save({ public_key: keys.public_key, secret_key: stranger.secret_key }, 'sneaky@example.com');
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
      expect(await notifications(keys)).toEqual([]);
    });
  });
});

describe('notification-recipients paging', () => {
  it('pages with limit and cursor, and refuses a tampered or foreign cursor', async () => {
    const [owner, stranger] = [await newAccount(), await newAccount()];
    for (let i = 1; i <= 5; i++) await save(owner, `ops${i}@example.com`);
    for (let i = 1; i <= 2; i++) await save(stranger, `other${i}@example.com`);
    const list: ListCall = (keys, query) => call(keys, 'GET', 'notification-recipients', { query });
    await expectFiveItemsToPage({ call: list, listName: 'notifications', owner, foreign: { call: list, keys: stranger } });
  });
});
