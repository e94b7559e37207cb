// Global unsubscribes through the Lambda handler on DynamoDB Local: every operation's exact bodies,
// one stored entry per address, and the lookups other parts of the service use.
import { handler } from '../../functions/global-unsubscribes/handler';
import { addGlobalUnsubscribe, globallyUnsubscribedAmong, isGloballyUnsubscribed } from '../../shared/suppressions/unsubscribes';
import { newAccount } from '../support/accounts';
import { handlerCaller, json, type Keys, multipart, timestampPattern, urlencoded } from '../support/events';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = timestampPattern;

type Account = Keys & { account_id: number };

const call = handlerCaller(handler);

async function save(keys: Keys, emailAddress: string) {
  return call(keys, 'POST', 'global-unsubscribes/save', { body: multipart({ email_address: emailAddress }) });
}

async function entries(keys: Keys) {
  const { body } = await call(keys, 'GET', 'global-unsubscribes');
  return (body.message as { unSubscribers: Record<string, unknown>[] }).unSubscribers;
}

async function addresses(keys: Keys) {
  return (await entries(keys)).map((entry) => entry.email_address);
}

const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };

describe('global unsubscribes', () => {
  let owner: Account;
  let stranger: Account;

  beforeAll(async () => {
    owner = await newAccount('Owner');
    stranger = await newAccount('Stranger');
  });

  describe('global-unsubscribes/save and global-unsubscribes', () => {
    it('adds each address of a comma-separated list and lists the entries with the spec fields', async () => {
      const keys = await newAccount();
      const result = await save(keys, ' first@example.com ,second@example.com,,  ');
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      const list = await call(keys, 'GET', 'global-unsubscribes');
      expect(list.status).toBe(200);
      const stored = (list.body.message as { unSubscribers: Record<string, unknown>[] }).unSubscribers;
      expect(stored).toEqual([
        {
          id: 1,
          user_id: keys.account_id,
          unsubscribe_groups_id: null,
          email_address: 'first@example.com',
          created_at: expect.stringMatching(timestamp),
          updated_at: expect.stringMatching(timestamp),
        },
        expect.objectContaining({ id: 2, email_address: 'second@example.com', unsubscribe_groups_id: null }),
      ]);
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'global-unsubscribes')).toEqual({ status: 200, body: { status: 'success', message: { unSubscribers: [], next_cursor: null } } });
    });

    it('stores an address once whatever its letter case, keeping the first spelling', async () => {
      const keys = await newAccount();
      await save(keys, 'Jane.Doe@Example.COM, jane.doe@example.com');
      await save(keys, 'JANE.DOE@EXAMPLE.COM');
      expect(await addresses(keys)).toEqual(['Jane.Doe@example.com']);
    });

    it('treats re-adding a listed address as a success that adds only the new ones', async () => {
      const keys = await newAccount();
      await save(keys, 'old@example.com');
      const again = await save(keys, 'old@example.com, new@example.com');
      expect(again).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect(await addresses(keys)).toEqual(['old@example.com', 'new@example.com']);
    });

    it('keeps one entry when concurrent requests add the same address', async () => {
      const keys = await newAccount();
      const results = await Promise.all(Array.from({ length: 6 }, () => save(keys, 'race@example.com, Race@Example.com')));
      expect(results.every((result) => result.status === 200)).toBe(true);
      expect(await addresses(keys)).toEqual(['race@example.com']);
    });

    it('adds a long list in order, across several transactions', async () => {
      const keys = await newAccount();
      const list = Array.from({ length: 75 }, (_, i) => `reader${i}@example.com`);
      await save(keys, list.join(','));
      const stored = await entries(keys);
      expect(stored.map((entry) => entry.email_address)).toEqual(list);
      expect(stored.map((entry) => entry.id)).toEqual(list.map((_, i) => i + 1));
    });

    it.each([
      ['a missing list', {}, 'The email address field is required.'],
      ['a blank list', { email_address: '   ' }, 'The email address field is required.'],
      ['a list of only commas', { email_address: ' , ,' }, 'The email address field is required.'],
      ['one bad address', { email_address: 'not-an-address' }, 'The email address field must contain valid email addresses: not-an-address.'],
      [
        'a list with bad addresses among good ones',
        { email_address: 'ok@example.com, bad@, two words@example.com, bad@' },
        'The email address field must contain valid email addresses: bad@, two words@example.com.',
      ],
      [
        '1001 addresses',
        { email_address: Array.from({ length: 1001 }, (_, i) => `r${i}@example.com`).join(',') },
        'The email address field must not contain more than 1000 addresses.',
      ],
    ])('refuses %s and stores nothing', async (_case, fields, message) => {
      const keys = await newAccount();
      const result = await call(keys, 'POST', 'global-unsubscribes/save', { body: multipart(fields) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { email_address: [message] } } });
      expect(await entries(keys)).toEqual([]);
    });

    it('refuses a list that is not text in a JSON body', async () => {
      const result = await call(owner, 'POST', 'global-unsubscribes/save', { body: json({ email_address: ['a@example.com'] }) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { email_address: ['The email address field must be a string.'] } } });
    });

    it('never shows one account the entries of another', async () => {
      const keys = await newAccount();
      await save(keys, 'private@example.com');
      expect(await entries(stranger)).toEqual([]);
      expect(await isGloballyUnsubscribed(stranger.account_id, 'private@example.com')).toBe(false);
    });
  });

  describe('global-unsubscribes/delete', () => {
    it('deletes an entry, after which the address is no longer suppressed and can be added again', async () => {
      const keys = await newAccount();
      await save(keys, 'gone@example.com, kept@example.com');
      const result = await call(keys, 'DELETE', 'global-unsubscribes/delete', { query: { id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await addresses(keys)).toEqual(['kept@example.com']);
      expect(await isGloballyUnsubscribed(keys.account_id, 'gone@example.com')).toBe(false);
      await save(keys, 'gone@example.com');
      expect(await entries(keys)).toEqual([
        expect.objectContaining({ id: 2, email_address: 'kept@example.com' }),
        expect.objectContaining({ id: 3, email_address: 'gone@example.com' }),
      ]);
    });

    it('answers Record Not Found for an unknown id and for one already deleted', async () => {
      const keys = await newAccount();
      await save(keys, 'once@example.com');
      await call(keys, 'DELETE', 'global-unsubscribes/delete', { query: { id: 1 } });
      expect(await call(keys, 'DELETE', 'global-unsubscribes/delete', { query: { id: 1 } })).toEqual(notFound);
      expect(await call(keys, 'DELETE', 'global-unsubscribes/delete', { query: { id: 999 } })).toEqual(notFound);
    });

    it.each([
      [{}, 'The id field is required.'],
      [{ id: 'abc' }, 'The id field must be an integer.'],
    ])('refuses query %j', async (query, message) => {
      const result = await call(owner, 'DELETE', 'global-unsubscribes/delete', { query });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { id: [message] } } });
    });

    it("cannot delete another account's entry", async () => {
      const keys = await newAccount();
      await save(keys, 'mine@example.com');
      expect(await call(stranger, 'DELETE', 'global-unsubscribes/delete', { query: { id: 1 } })).toEqual(notFound);
      expect(await addresses(keys)).toEqual(['mine@example.com']);
    });
  });

  describe('global-unsubscribes/bulk-delete', () => {
    it('deletes every listed entry', async () => {
      const keys = await newAccount();
      await save(keys, 'a@example.com, b@example.com, c@example.com');
      const result = await call(keys, 'POST', 'global-unsubscribes/bulk-delete', { body: urlencoded({ strIds: [1, 3] }) });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await addresses(keys)).toEqual(['b@example.com']);
      expect(await globallyUnsubscribedAmong(keys.account_id, ['a@example.com', 'b@example.com', 'c@example.com'])).toEqual(new Set(['b@example.com']));
    });

    it('deletes nothing when one id is unknown', async () => {
      const keys = await newAccount();
      await save(keys, 'a@example.com, b@example.com');
      const result = await call(keys, 'POST', 'global-unsubscribes/bulk-delete', { body: urlencoded({ strIds: [1, 2, 77] }) });
      expect(result).toEqual(notFound);
      expect(await addresses(keys)).toEqual(['a@example.com', 'b@example.com']);
    });

    it("deletes nothing when one id is another account's", async () => {
      const keys = await newAccount();
      const other = await newAccount();
      await save(keys, 'a@example.com');
      await save(other, 'x@example.com, y@example.com');
      const result = await call(keys, 'POST', 'global-unsubscribes/bulk-delete', { body: urlencoded({ strIds: [1, 2] }) });
      expect(result).toEqual(notFound);
      expect(await addresses(keys)).toEqual(['a@example.com']);
      expect(await addresses(other)).toEqual(['x@example.com', 'y@example.com']);
    });

    it.each([
      [{}, 'The str ids field is required.'],
      [{ strIds: ['x'] }, 'The str ids.0 field must be an integer.'],
    ])('refuses %j', async (fields, message) => {
      const result = await call(owner, 'POST', 'global-unsubscribes/bulk-delete', { body: urlencoded(fields) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { strIds: [message] } } });
    });
  });

  describe('lookups for sending, the unsubscribe page and SES events', () => {
    it('answers whether an address is unsubscribed, without regard to letter case', async () => {
      const keys = await newAccount();
      await save(keys, 'Someone@Example.com');
      expect(await isGloballyUnsubscribed(keys.account_id, 'someone@EXAMPLE.com')).toBe(true);
      expect(await isGloballyUnsubscribed(keys.account_id, 'nobody@example.com')).toBe(false);
    });

    it('finds the unsubscribed among many addresses', async () => {
      const keys = await newAccount();
      const listed = Array.from({ length: 120 }, (_, i) => `listed${i}@example.com`);
      await save(keys, listed.join(','));
      const candidates = [...listed.filter((_, i) => i % 2 === 0), 'LISTED1@example.com', 'fresh@example.com', 'fresh@example.com'];
      const found = await globallyUnsubscribedAmong(keys.account_id, candidates);
      expect(found).toEqual(new Set([...listed.filter((_, i) => i % 2 === 0), 'listed1@example.com']));
    });

    it('adds an address idempotently', async () => {
      const keys = await newAccount();
      expect(await addGlobalUnsubscribe(keys.account_id, 'bounce@example.com')).toBe(true);
      expect(await addGlobalUnsubscribe(keys.account_id, 'Bounce@example.com')).toBe(false);
      expect(await addresses(keys)).toEqual(['bounce@example.com']);
    });
  });

  describe('credentials', () => {
    it('answers 401 with both messages when both headers are missing', async () => {
      const result = await call(undefined, 'GET', 'global-unsubscribes');
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
      const result = await save({ public_key: keys.public_key, secret_key: owner.secret_key }, 'sneaky@example.com');
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
      expect(await entries(keys)).toEqual([]);
    });
  });
});

describe('global-unsubscribes paging', () => {
  it('pages with limit and cursor, and refuses a tampered or foreign cursor', async () => {
    const [owner, stranger] = [await newAccount(), await newAccount()];
    await save(owner, 'e@example.com, d@example.com, c@example.com, b@example.com, a@example.com');
    await save(stranger, 'x@example.com, y@example.com');
    const list: ListCall = (keys, query) => call(keys, 'GET', 'global-unsubscribes', { query });
    await expectFiveItemsToPage({ call: list, listName: 'unSubscribers', owner, foreign: { call: list, keys: stranger } });
  });
});
