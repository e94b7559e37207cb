// Unsubscribe groups and their recipients through the Lambda handler on DynamoDB Local: every
// operation's exact bodies, the recipient counter, and the group lookups other parts of the service use.
import { handler } from '../../functions/unsubscribe-groups/handler';
import { RecordNotFound } from '../../shared/table/errors';
import { inUnsubscribeGroupAmong, suppressedAmong } from '../../shared/suppressions/repository';
import { addToUnsubscribeGroup, isGloballyUnsubscribed, isInUnsubscribeGroup, addGlobalUnsubscribe } from '../../shared/suppressions/unsubscribes';
import { listDisplayedUnsubscribeGroups } from '../../shared/suppressions/unsubscribe-groups';
import { newAccount } from '../support/accounts';
import { handlerCaller, type Keys, multipart, timestampPattern, urlencoded } from '../support/events';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = timestampPattern;

type Account = Keys & { account_id: number };

const call = handlerCaller(handler);

async function saveGroup(keys: Keys, group_name = 'Newsletter', description = 'Weekly news', is_display: 0 | 1 = 1) {
  return call(keys, 'POST', 'unsubscribes-groups/save', { body: multipart({ group_name, description, is_display }) });
}

async function groups(keys: Keys) {
  const { body } = await call(keys, 'GET', 'unsubscribes-groups');
  return (body.message as { unsubscribesGroups: Record<string, unknown>[] }).unsubscribesGroups;
}

async function counts(keys: Keys) {
  return (await groups(keys)).map((group) => group.unsubscribe_clients_count);
}

async function manuallyAdd(keys: Keys, groupId: number | string, emailAddress: string) {
  return call(keys, 'POST', 'unsubscribes-groups/manually-add', { body: multipart({ unsubscribe_groups_id: groupId, email_address: emailAddress }) });
}

async function recipients(keys: Keys, groupId: number) {
  const { body } = await call(keys, 'GET', 'unsubscribes-groups/recipients-list', { query: { groupId } });
  return (body.message as { recipients: Record<string, unknown>[] }).recipients;
}

async function addresses(keys: Keys, groupId: number) {
  return (await recipients(keys, groupId)).map((recipient) => recipient.email_address);
}

const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
const invalidGroup = { status: 422, body: { status: 'failed', errors: { unsubscribe_groups_id: ['The selected unsubscribe groups id is invalid.'] } } };

describe('unsubscribe groups', () => {
  let owner: Account;
  let stranger: Account;

  beforeAll(async () => {
    owner = await newAccount('Owner');
    stranger = await newAccount('Stranger');
  });

  describe('unsubscribes-groups/save and unsubscribes-groups', () => {
    it('saves a group and lists it with its recipient count and the spec fields', async () => {
      const keys = await newAccount();
      const saved = await saveGroup(keys, 'Newsletter', 'Weekly news', 1);
      await saveGroup(keys, 'Offers', 'Discounts', 0);
      const list = await call(keys, 'GET', 'unsubscribes-groups');
      expect(saved).toEqual({ status: 200, body: { status: 'success', message: 'Saved Successfully' } });
      expect(list.status).toBe(200);
      const stored = (list.body.message as { unsubscribesGroups: Record<string, unknown>[] }).unsubscribesGroups;
      expect(stored).toEqual([
        {
          id: 1,
          user_id: keys.account_id,
          rand_id: expect.stringMatching(/^\d{8,10}$/),
          group_name: 'Newsletter',
          description: 'Weekly news',
          is_display: 1,
          created_at: expect.stringMatching(timestamp),
          updated_at: expect.stringMatching(timestamp),
          unsubscribe_clients_count: 0,
        },
        expect.objectContaining({ id: 2, group_name: 'Offers', is_display: 0, unsubscribe_clients_count: 0 }),
      ]);
      expect(Object.keys(stored[0] as object)).toEqual([
        'id', 'user_id', 'rand_id', 'group_name', 'description', 'is_display', 'created_at', 'updated_at', 'unsubscribe_clients_count',
      ]);
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'unsubscribes-groups')).toEqual({ status: 200, body: { status: 'success', message: { unsubscribesGroups: [], next_cursor: null } } });
    });

    it('lists each missing field', async () => {
      const result = await call(owner, 'POST', 'unsubscribes-groups/save', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            group_name: ['The group name field is required.'],
            description: ['The description field is required.'],
            is_display: ['The is display field is required.'],
          },
        },
      });
    });

    it.each([
      ['an is_display that is not 0 or 1', { is_display: 'yes' }, 'is_display', 'The is display field must be true or false.'],
      ['a group name over 255 characters', { group_name: 'g'.repeat(256) }, 'group_name', 'The group name field must not be greater than 255 characters.'],
      ['a description over 1000 characters', { description: 'd'.repeat(1001) }, 'description', 'The description field must not be greater than 1000 characters.'],
    ])('refuses %s', async (_case, change, field, message) => {
      const keys = await newAccount();
      const result = await call(keys, 'POST', 'unsubscribes-groups/save', {
        body: multipart({ group_name: 'Name', description: 'Text', is_display: 1, ...change }),
      });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
      expect(await groups(keys)).toEqual([]);
    });

    it('never shows one account the groups of another', async () => {
      const keys = await newAccount();
      await saveGroup(keys, 'Mine only');
      expect(await groups(await newAccount())).toEqual([]);
    });
  });

  describe('unsubscribes-groups/details', () => {
    it('answers the group without a count field', async () => {
      const keys = await newAccount();
      await saveGroup(keys, 'Product news', 'Launches', 0);
      const listed = (await groups(keys))[0] as Record<string, unknown>;
      const result = await call(keys, 'GET', 'unsubscribes-groups/details', { query: { id: 1 } });
      const { unsubscribe_clients_count: _count, ...group } = listed;
      expect(result).toEqual({ status: 200, body: { status: 'success', message: { unsubscribesGroup: group } } });
      expect(group).toMatchObject({ id: 1, group_name: 'Product news', description: 'Launches', is_display: 0 });
    });

    it('answers Record Not Found for an unknown id', async () => {
      expect(await call(owner, 'GET', 'unsubscribes-groups/details', { query: { id: 999 } })).toEqual(notFound);
    });

    it.each([
      [{}, 'The id field is required.'],
      [{ id: 'abc' }, 'The id field must be an integer.'],
    ])('refuses query %j', async (query, message) => {
      const result = await call(owner, 'GET', 'unsubscribes-groups/details', { query });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { id: [message] } } });
    });

    it("does not show another account's group", async () => {
      const keys = await newAccount();
      await saveGroup(keys, 'Secret group');
      const result = await call(stranger, 'GET', 'unsubscribes-groups/details', { query: { id: 1 } });
      expect(result).toEqual(notFound);
      expect(JSON.stringify(result.body)).not.toContain('Secret group');
    });
  });

  describe('unsubscribes-groups/update', () => {
    it('changes the fields, keeps rand_id and created_at, and moves updated_at', async () => {
      const keys = await newAccount();
      await saveGroup(keys, 'Old', 'Old text', 1);
      const before = (await groups(keys))[0] as Record<string, unknown>;
      const result = await call(keys, 'POST', 'unsubscribes-groups/update', {
        query: { id: 1 },
        body: multipart({ group_name: 'New', description: 'New text', is_display: 0 }),
      });
      const after = (await groups(keys))[0] as Record<string, unknown>;
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Updated Successfully' } });
      expect(after).toMatchObject({ group_name: 'New', description: 'New text', is_display: 0, rand_id: before.rand_id, created_at: before.created_at });
      expect(String(after.updated_at) >= String(before.updated_at)).toBe(true);
    });

    it('reports the missing query id together with the missing body fields', async () => {
      const result = await call(owner, 'POST', 'unsubscribes-groups/update', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            id: ['The id field is required.'],
            group_name: ['The group name field is required.'],
            description: ['The description field is required.'],
            is_display: ['The is display field is required.'],
          },
        },
      });
    });

    it('answers Record Not Found for an unknown id', async () => {
      const result = await call(owner, 'POST', 'unsubscribes-groups/update', {
        query: { id: 999 },
        body: multipart({ group_name: 'X', description: 'Y', is_display: 1 }),
      });
      expect(result).toEqual(notFound);
    });

    it("cannot change another account's group", async () => {
      const keys = await newAccount();
      await saveGroup(keys, 'Untouched');
      const result = await call(stranger, 'POST', 'unsubscribes-groups/update', {
        query: { id: 1 },
        body: multipart({ group_name: 'Hijacked', description: 'Y', is_display: 1 }),
      });
      expect(result).toEqual(notFound);
      expect((await groups(keys))[0]?.group_name).toBe('Untouched');
    });
  });

  describe('unsubscribes-groups/manually-add and recipients-list', () => {
    it('adds the addresses of a list once each, counts them, and lists them with the entry fields', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      const added = await manuallyAdd(keys, 1, ' one@example.com, Two@Example.com ,, ONE@example.com');
      expect(added).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      const list = await call(keys, 'GET', 'unsubscribes-groups/recipients-list', { query: { groupId: 1 } });
      expect(list).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            recipients: [
              {
                id: 1,
                user_id: keys.account_id,
                unsubscribe_groups_id: 1,
                email_address: 'one@example.com',
                created_at: expect.stringMatching(timestamp),
                updated_at: expect.stringMatching(timestamp),
              },
              expect.objectContaining({ id: 2, unsubscribe_groups_id: 1, email_address: 'Two@example.com' }),
            ],
            next_cursor: null,
          },
        },
      });
      expect(await counts(keys)).toEqual([2]);
    });

    it('does not add an address already in the group, and that is not an error', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      await manuallyAdd(keys, 1, 'kept@example.com');
      const again = await manuallyAdd(keys, 1, 'KEPT@example.com, new@example.com');
      expect(again).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect(await addresses(keys, 1)).toEqual(['kept@example.com', 'new@example.com']);
      expect(await counts(keys)).toEqual([2]);
    });

    it('keeps groups apart: ids run across groups and each group counts its own', async () => {
      const keys = await newAccount();
      await saveGroup(keys, 'First');
      await saveGroup(keys, 'Second');
      await manuallyAdd(keys, 1, 'shared@example.com, a@example.com');
      await manuallyAdd(keys, 2, 'shared@example.com');
      expect(await recipients(keys, 2)).toEqual([expect.objectContaining({ id: 3, unsubscribe_groups_id: 2, email_address: 'shared@example.com' })]);
      expect(await counts(keys)).toEqual([2, 1]);
      // A group is not the global list.
      expect(await isGloballyUnsubscribed(keys.account_id, 'shared@example.com')).toBe(false);
    });

    it('counts every recipient when concurrent requests add to one group', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      const batches = Array.from({ length: 4 }, (_, b) => Array.from({ length: 5 }, (_, i) => `b${b}r${i}@example.com`).join(', ') + ', common@example.com');
      const results = await Promise.all(batches.map((batch) => manuallyAdd(keys, 1, batch)));
      expect(results.every((result) => result.status === 200)).toBe(true);
      expect(await addresses(keys, 1)).toHaveLength(21);
      expect(await counts(keys)).toEqual([21]);
    });

    it('lists each missing field', async () => {
      const result = await call(owner, 'POST', 'unsubscribes-groups/manually-add', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            unsubscribe_groups_id: ['The unsubscribe groups id field is required.'],
            email_address: ['The email address field is required.'],
          },
        },
      });
    });

    it.each([
      ['a group id that is not an integer', 'abc', 'a@example.com', 'unsubscribe_groups_id', 'The unsubscribe groups id field must be an integer.'],
      ['a bad address', 1, 'a@example.com, nope', 'email_address', 'The email address field must contain valid email addresses: nope.'],
    ])('refuses %s', async (_case, groupId, list, field, message) => {
      const keys = await newAccount();
      await saveGroup(keys);
      expect(await manuallyAdd(keys, groupId, list)).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
      expect(await addresses(keys, 1)).toEqual([]);
    });

    it('refuses an unknown group id', async () => {
      const keys = await newAccount();
      expect(await manuallyAdd(keys, 5, 'a@example.com')).toEqual(invalidGroup);
      expect(await manuallyAdd(keys, 0, 'a@example.com')).toEqual(invalidGroup);
    });

    it("refuses another account's group id and adds nothing to it", async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      expect(await manuallyAdd(stranger, 1, 'intruder@example.com')).toEqual(invalidGroup);
      expect(await addresses(keys, 1)).toEqual([]);
      expect(await counts(keys)).toEqual([0]);
    });

    it('answers Record Not Found for the recipients of an unknown group, or of a group of another account', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      await manuallyAdd(keys, 1, 'hidden@example.com');
      expect(await call(keys, 'GET', 'unsubscribes-groups/recipients-list', { query: { groupId: 2 } })).toEqual(notFound);
      const foreign = await call(stranger, 'GET', 'unsubscribes-groups/recipients-list', { query: { groupId: 1 } });
      expect(foreign).toEqual(notFound);
    });

    it('answers an empty list for a group without recipients', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      expect(await call(keys, 'GET', 'unsubscribes-groups/recipients-list', { query: { groupId: 1 } })).toEqual({
        status: 200,
        body: { status: 'success', message: { recipients: [], next_cursor: null } },
      });
    });

    it.each([
      [{}, 'The group id field is required.'],
      [{ groupId: 'x' }, 'The group id field must be an integer.'],
    ])('refuses recipients-list query %j', async (query, message) => {
      const result = await call(owner, 'GET', 'unsubscribes-groups/recipients-list', { query });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { groupId: [message] } } });
    });
  });

  describe('unsubscribes-groups/recipients-delete', () => {
    it('deletes a recipient, lowers the count, and lets the address be added again', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      await manuallyAdd(keys, 1, 'gone@example.com, kept@example.com');
      const result = await call(keys, 'DELETE', 'unsubscribes-groups/recipients-delete', { query: { id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await addresses(keys, 1)).toEqual(['kept@example.com']);
      expect(await counts(keys)).toEqual([1]);
      expect(await isInUnsubscribeGroup(keys.account_id, 1, 'gone@example.com')).toBe(false);
      await manuallyAdd(keys, 1, 'gone@example.com');
      expect(await addresses(keys, 1)).toEqual(['kept@example.com', 'gone@example.com']);
      expect(await counts(keys)).toEqual([2]);
    });

    it('answers Record Not Found for an unknown id and for one already deleted', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      await manuallyAdd(keys, 1, 'once@example.com');
      await call(keys, 'DELETE', 'unsubscribes-groups/recipients-delete', { query: { id: 1 } });
      expect(await call(keys, 'DELETE', 'unsubscribes-groups/recipients-delete', { query: { id: 1 } })).toEqual(notFound);
      expect(await counts(keys)).toEqual([0]);
    });

    it('needs an integer id', async () => {
      const result = await call(owner, 'DELETE', 'unsubscribes-groups/recipients-delete', { query: { id: '1.5' } });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { id: ['The id field must be an integer.'] } } });
    });

    it("cannot delete another account's recipient", async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      await manuallyAdd(keys, 1, 'mine@example.com');
      expect(await call(stranger, 'DELETE', 'unsubscribes-groups/recipients-delete', { query: { id: 1 } })).toEqual(notFound);
      expect(await addresses(keys, 1)).toEqual(['mine@example.com']);
    });
  });

  describe('unsubscribes-groups/recipients-bulk-delete', () => {
    it('deletes the listed recipients across groups and lowers each count', async () => {
      const keys = await newAccount();
      await saveGroup(keys, 'First');
      await saveGroup(keys, 'Second');
      await manuallyAdd(keys, 1, 'a@example.com, b@example.com, c@example.com');
      await manuallyAdd(keys, 2, 'd@example.com');
      const result = await call(keys, 'POST', 'unsubscribes-groups/recipients-bulk-delete', { body: urlencoded({ strIds: [1, 3, 4] }) });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await addresses(keys, 1)).toEqual(['b@example.com']);
      expect(await addresses(keys, 2)).toEqual([]);
      expect(await counts(keys)).toEqual([1, 0]);
    });

    it('deletes nothing when one id is unknown', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      await manuallyAdd(keys, 1, 'a@example.com, b@example.com');
      expect(await call(keys, 'POST', 'unsubscribes-groups/recipients-bulk-delete', { body: urlencoded({ strIds: [1, 9] }) })).toEqual(notFound);
      expect(await addresses(keys, 1)).toEqual(['a@example.com', 'b@example.com']);
      expect(await counts(keys)).toEqual([2]);
    });

    it("deletes nothing when one id is another account's", async () => {
      const keys = await newAccount();
      const other = await newAccount();
      await saveGroup(keys);
      await saveGroup(other);
      await manuallyAdd(keys, 1, 'a@example.com');
      await manuallyAdd(other, 1, 'x@example.com, y@example.com');
      expect(await call(keys, 'POST', 'unsubscribes-groups/recipients-bulk-delete', { body: urlencoded({ strIds: [1, 2] }) })).toEqual(notFound);
      expect(await addresses(keys, 1)).toEqual(['a@example.com']);
      expect(await addresses(other, 1)).toEqual(['x@example.com', 'y@example.com']);
    });

    it('needs strIds', async () => {
      const result = await call(owner, 'POST', 'unsubscribes-groups/recipients-bulk-delete', { body: urlencoded({}) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { strIds: ['The str ids field is required.'] } } });
    });
  });

  describe('lookups for sending, the unsubscribe page and SES events', () => {
    it('answers group membership without regard to letter case, one address or many', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      await manuallyAdd(keys, 1, 'Member@Example.com, other@example.com');
      expect(await isInUnsubscribeGroup(keys.account_id, 1, 'member@example.COM')).toBe(true);
      expect(await isInUnsubscribeGroup(keys.account_id, 2, 'member@example.com')).toBe(false);
      expect(await inUnsubscribeGroupAmong(keys.account_id, 1, ['MEMBER@example.com', 'stranger@example.com'])).toEqual(new Set(['member@example.com']));
    });

    it('finds what a send to a group must skip: the global list and the group together', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      await manuallyAdd(keys, 1, 'in-group@example.com');
      await addGlobalUnsubscribe(keys.account_id, 'global@example.com');
      const candidates = ['in-group@example.com', 'global@example.com', 'reachable@example.com'];
      expect(await suppressedAmong(keys.account_id, candidates, 1)).toEqual(new Set(['in-group@example.com', 'global@example.com']));
      expect(await suppressedAmong(keys.account_id, candidates)).toEqual(new Set(['global@example.com']));
    });

    it('adds to a group idempotently and counts the address once', async () => {
      const keys = await newAccount();
      await saveGroup(keys);
      expect(await addToUnsubscribeGroup(keys.account_id, 1, 'click@example.com')).toBe(true);
      expect(await addToUnsubscribeGroup(keys.account_id, 1, 'CLICK@example.com')).toBe(false);
      expect(await addresses(keys, 1)).toEqual(['click@example.com']);
      expect(await counts(keys)).toEqual([1]);
    });

    it('refuses to add to a group that does not exist, and creates nothing', async () => {
      const keys = await newAccount();
      await expect(addToUnsubscribeGroup(keys.account_id, 3, 'a@example.com')).rejects.toBeInstanceOf(RecordNotFound);
      expect(await groups(keys)).toEqual([]);
    });

    it('lists only the groups shown on the preferences page', async () => {
      const keys = await newAccount();
      await saveGroup(keys, 'Shown', 'Yes', 1);
      await saveGroup(keys, 'Hidden', 'No', 0);
      expect((await listDisplayedUnsubscribeGroups(keys.account_id)).map((group) => group.group_name)).toEqual(['Shown']);
    });
  });

  describe('credentials', () => {
    it('answers 401 with both messages when both headers are missing', async () => {
      const result = await call(undefined, 'GET', 'unsubscribes-groups');
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
      const result = await saveGroup({ public_key: keys.public_key, secret_key: 'wrong' });
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
      expect(await groups(keys)).toEqual([]);
    });
  });
});

describe('unsubscribe groups paging', () => {
  it('pages the groups with limit and cursor, and refuses a tampered or foreign cursor', async () => {
    const [owner, stranger] = [await newAccount(), await newAccount()];
    for (const name of ['One', 'Two', 'Three', 'Four', 'Five']) await saveGroup(owner, name);
    for (const name of ['Other', 'Another']) await saveGroup(stranger, name);
    const list: ListCall = (keys, query) => call(keys, 'GET', 'unsubscribes-groups', { query });
    await expectFiveItemsToPage({ call: list, listName: 'unsubscribesGroups', owner, foreign: { call: list, keys: stranger } });
  });

  it("pages a group's recipients in id order, and refuses another group's cursor", async () => {
    const owner = await newAccount();
    await saveGroup(owner, 'Paged');
    await saveGroup(owner, 'Other');
    await manuallyAdd(owner, 1, 'e@example.com, d@example.com, c@example.com');
    await manuallyAdd(owner, 1, 'b@example.com, a@example.com');
    await manuallyAdd(owner, 2, 'x@example.com, y@example.com');
    const groupList = (groupId: number): ListCall => (keys, query) => call(keys, 'GET', 'unsubscribes-groups/recipients-list', { query: { groupId, ...query } });
    await expectFiveItemsToPage({ call: groupList(1), listName: 'recipients', owner, foreign: { call: groupList(2), keys: owner } });
    expect((await recipients(owner, 1)).map((entry) => entry.email_address)).toEqual(['e@example.com', 'd@example.com', 'c@example.com', 'b@example.com', 'a@example.com']);
  });
});
