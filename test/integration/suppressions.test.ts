// The suppression list (addresses SES reported as hard-bounced or complaining) through the Lambda
// handler on DynamoDB Local: exact list bodies, the type filter, paging, delete and its not-found,
// another account's entries invisible, and a deleted address mailed again.
import { handler } from '../../functions/suppressions/handler';
import { addBouncedAddress, bouncedAmong } from '../../shared/suppressions/bounces';
import { newAccount } from '../support/accounts';
import { handlerCaller, timestampPattern, type Keys } from '../support/events';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

type Account = Keys & { account_id: number };

const call = handlerCaller(handler);

async function suppressions(keys: Keys, query: Record<string, string | number> = {}) {
  return call(keys, 'GET', 'suppressions', { query });
}

async function listed(keys: Keys, query: Record<string, string | number> = {}) {
  const { body } = await suppressions(keys, query);
  return (body.message as { suppressions: Record<string, unknown>[] }).suppressions;
}

const deleteAddress = (keys: Keys | undefined, email?: string) => call(keys, 'DELETE', 'suppressions/delete', email === undefined ? {} : { query: { email } });

const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };

describe('suppressions', () => {
  let owner: Account;
  let stranger: Account;

  beforeAll(async () => {
    owner = await newAccount('Owner');
    stranger = await newAccount('Stranger');
    await addBouncedAddress(owner.account_id, 'Zed@Example.com', 'bounce', 'General');
    await addBouncedAddress(owner.account_id, 'amy@example.com', 'complaint', 'abuse');
    await addBouncedAddress(owner.account_id, 'bob@example.com', 'bounce', null);
    await addBouncedAddress(stranger.account_id, 'secret@example.com', 'bounce', 'General');
  });

  describe('GET suppressions', () => {
    it('lists every entry in address order with its type, reason and first report', async () => {
      const result = await suppressions(owner);
      expect(result).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            suppressions: [
              { email: 'amy@example.com', type: 'complaint', reason: 'abuse', created_at: expect.stringMatching(timestampPattern) },
              { email: 'bob@example.com', type: 'bounce', reason: null, created_at: expect.stringMatching(timestampPattern) },
              { email: 'Zed@Example.com', type: 'bounce', reason: 'General', created_at: expect.stringMatching(timestampPattern) },
            ],
            next_cursor: null,
          },
        },
      });
    });

    it('filters by type', async () => {
      expect((await listed(owner, { type: 'bounce' })).map((entry) => entry.email)).toEqual(['bob@example.com', 'Zed@Example.com']);
      expect((await listed(owner, { type: 'complaint' })).map((entry) => entry.email)).toEqual(['amy@example.com']);
    });

    it('moves an address to the complaint list when it complains after a bounce, keeping its first report time', async () => {
      const keys = await newAccount();
      await addBouncedAddress(keys.account_id, 'both@example.com', 'bounce', 'General');
      const [first] = await listed(keys);
      await addBouncedAddress(keys.account_id, 'BOTH@example.com', 'complaint', 'abuse');
      expect(await listed(keys, { type: 'bounce' })).toEqual([]);
      expect(await listed(keys, { type: 'complaint' })).toEqual([{ email: 'both@example.com', type: 'complaint', reason: 'abuse', created_at: first?.created_at }]);
      expect(await listed(keys)).toHaveLength(1);
    });

    it('refuses an unknown type', async () => {
      expect(await suppressions(owner, { type: 'unsubscribe' })).toEqual({
        status: 422,
        body: { status: 'failed', errors: { type: ['The selected type is invalid.'] } },
      });
    });

    it('answers an empty list for an account with no suppressions', async () => {
      const keys = await newAccount();
      expect(await suppressions(keys)).toEqual({ status: 200, body: { status: 'success', message: { suppressions: [], next_cursor: null } } });
    });

    it('never shows another account’s entries', async () => {
      expect((await listed(owner)).map((entry) => entry.email)).not.toContain('secret@example.com');
      expect((await listed(stranger)).map((entry) => entry.email)).toEqual(['secret@example.com']);
    });
  });

  describe('DELETE suppressions/delete', () => {
    it('deletes an address in any letter case, so it is mailed again', async () => {
      const keys = await newAccount();
      await addBouncedAddress(keys.account_id, 'Back@Example.com', 'bounce', 'General');
      await addBouncedAddress(keys.account_id, 'stays@example.com', 'complaint', 'abuse');
      expect(await bouncedAmong(keys.account_id, ['back@example.com'])).toEqual(new Set(['back@example.com']));

      expect(await deleteAddress(keys, 'back@EXAMPLE.com')).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });

      expect(await bouncedAmong(keys.account_id, ['Back@Example.com', 'stays@example.com'])).toEqual(new Set(['stays@example.com']));
      expect((await listed(keys)).map((entry) => entry.email)).toEqual(['stays@example.com']);
      expect(await listed(keys, { type: 'bounce' })).toEqual([]);
    });

    it('answers Record Not Found for an address not on the list, and for a second delete', async () => {
      const keys = await newAccount();
      await addBouncedAddress(keys.account_id, 'once@example.com', 'bounce', 'General');
      expect(await deleteAddress(keys, 'never@example.com')).toEqual(notFound);
      expect((await deleteAddress(keys, 'once@example.com')).status).toBe(200);
      expect(await deleteAddress(keys, 'once@example.com')).toEqual(notFound);
    });

    it('answers Record Not Found for another account’s address and leaves it suppressed', async () => {
      expect(await deleteAddress(owner, 'secret@example.com')).toEqual(notFound);
      expect(await bouncedAmong(stranger.account_id, ['secret@example.com'])).toEqual(new Set(['secret@example.com']));
    });

    it('requires a valid email', async () => {
      expect(await deleteAddress(owner)).toEqual({ status: 422, body: { status: 'failed', errors: { email: ['The email field is required.'] } } });
      expect(await deleteAddress(owner, 'not-an-address')).toEqual({
        status: 422,
        body: { status: 'failed', errors: { email: ['The email field must be a valid email address.'] } },
      });
    });
  });

  describe('credentials', () => {
    it('answers 401 with both messages when both headers are missing', async () => {
      const missing = {
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      };
      expect(await call(undefined, 'GET', 'suppressions')).toEqual(missing);
      expect(await deleteAddress(undefined, 'amy@example.com')).toEqual(missing);
    });

    it('refuses a wrong secret and deletes nothing', async () => {
      const result = await deleteAddress({ public_key: owner.public_key, secret_key: stranger.secret_key }, 'amy@example.com');
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
      expect(await bouncedAmong(owner.account_id, ['amy@example.com'])).toEqual(new Set(['amy@example.com']));
    });
  });
});

describe('suppressions paging', () => {
  it('pages with limit and cursor, all and by type, and refuses a tampered or foreign cursor', async () => {
    const [owner, stranger] = [await newAccount(), await newAccount()];
    for (const address of ['e@example.com', 'd@example.com', 'c@example.com', 'b@example.com', 'a@example.com']) {
      await addBouncedAddress(owner.account_id, address, 'bounce', 'General');
    }
    await addBouncedAddress(owner.account_id, 'x@example.com', 'complaint', 'abuse');
    await addBouncedAddress(owner.account_id, 'y@example.com', 'complaint', 'abuse');
    const bounces: ListCall = (keys, query) => suppressions(keys, { type: 'bounce', ...query });
    const complaints: ListCall = (keys, query) => suppressions(keys, { type: 'complaint', ...query });
    // The other kind's list of the same account is foreign to a cursor, as another account's is.
    await expectFiveItemsToPage({ call: bounces, listName: 'suppressions', owner, foreign: { call: complaints, keys: owner } });

    await addBouncedAddress(stranger.account_id, 'p@example.com', 'bounce', null);
    await addBouncedAddress(stranger.account_id, 'q@example.com', 'bounce', null);
    const byOwner = await call(owner, 'GET', 'suppressions', { query: { limit: 6 } });
    expect((byOwner.body.message as { suppressions: unknown[] }).suppressions).toHaveLength(6);
    const foreign = (await suppressions(stranger, { limit: 1 })).body.message as { next_cursor: string };
    expect(await suppressions(owner, { cursor: foreign.next_cursor })).toEqual({
      status: 422,
      body: { status: 'failed', errors: { cursor: ['The cursor field is invalid.'] } },
    });
  });
});
