// Write-sharded contact partitions on DynamoDB Local: 2,500 contacts of one account spread over the 16
// shards of the contact, by-type index and email-claim partitions, and every reader that must merge
// them: contacts/list pages (large and small limits, after deletions skew a shard), the by-type
// readers, old-format list cursors, the email claim within a type, and the contact-type cascade.
import { signToken } from '../../shared/signed-token';
import { importContactRows } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-lookup';
import { contactsOfTypePage, forEachContactOfType, type ContactFields } from '../../shared/contacts/repository';
import { ContactEmailTaken } from '../../shared/contacts/errors';
import { addContact, deleteContacts } from '../../shared/audience/contact-service';
import { contactEmailKey, contactPartition, contactShardPartition, contactShards, contactsOfTypeShardPartition } from '../../shared/contacts/keys';
import { entityPartition, idSortKey, shardPartition } from '../../shared/table/keys';
import { queryAll, type Item } from '../../shared/table/records';
import { findCountryByCode } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { addType, callContacts, contactCounts, deleteType, type Account } from '../support/contacts';
import { multipart } from '../support/events';
import { contactFields } from '../support/sending';

const slow = 120_000;
const total = 1200;
/** Contacts of the customers type; the rest are leads. Over 1,000 in all, so a page of 1,000 is not the last. */
const customerCount = 700;
/** The id of the United States in the reference data (the API takes country ids). */
let us: number;

const fields = (contactTypeId: number, email: string): ContactFields => contactFields(contactTypeId, email, { first_name: 'Shard', country: String(us) });

/** Import `count` contacts into a type through the CSV import's write path, 500 rows a call. */
async function importMany(accountId: number, contactTypeId: number, emails: string[]): Promise<void> {
  for (let start = 0; start < emails.length; start += 500) {
    const rows: ImportRow[] = emails.slice(start, start + 500).map((email, index) => ({ line: start + index + 2, fields: fields(contactTypeId, email), customValues: {} }));
    const result = await importContactRows(accountId, contactTypeId, rows, new Set(['email', 'first_name', 'last_name']));
    expect(result).toEqual({ imported: rows.length, updated: 0, refused: [] });
  }
}

interface ListReply {
  ids: number[];
  nextCursor: string | null;
}

async function listPage(keys: Account, query: Record<string, string | number>): Promise<ListReply> {
  const { status, body } = await callContacts(keys, 'GET', 'contacts/list', { query });
  if (status !== 200) throw new Error(`contacts/list answered ${status}: ${JSON.stringify(body)}`);
  const message = body.message as { contacts: { id: number }[]; next_cursor: string | null };
  return { ids: message.contacts.map((contact) => contact.id), nextCursor: message.next_cursor };
}

/** Every page of contacts/list with `limit`, following next_cursor. */
async function walk(keys: Account, limit: number): Promise<number[][]> {
  const pages: number[][] = [];
  let cursor: string | null = null;
  do {
    const page: ListReply = await listPage(keys, { limit, ...(cursor ? { cursor } : {}) });
    pages.push(page.ids);
    cursor = page.nextCursor;
    if (pages.length > total) throw new Error('the list never ends');
  } while (cursor);
  return pages;
}

/** Every id exactly once, ascending, and every page but the last full. */
function expectPaged(pages: number[][], expected: number[], limit: number) {
  expect(pages.flat()).toEqual(expected);
  expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
  expect(pages.length).toBe(Math.max(1, Math.ceil(expected.length / limit)));
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);

describe('write-sharded contact partitions', () => {
  let keys: Account;
  let customers: number;
  let leads: number;
  /** Ids of the customers type (1..700) and of the leads type (701..1200). */
  let customerIds: number[];
  let leadIds: number[];
  let remaining: number[];

  beforeAll(async () => {
    us = ((await findCountryByCode('US')) as { id: number }).id;
    keys = await newAccount('Sharded');
    customers = await addType(keys, 'Customers');
    leads = await addType(keys, 'Leads');
    await importMany(keys.account_id, customers, range(1, customerCount).map((n) => `customer${n}@example.com`));
    await importMany(keys.account_id, leads, range(1, total - customerCount).map((n) => `lead${n}@example.com`));
    customerIds = range(1, customerCount);
    leadIds = range(customerCount + 1, total);
    remaining = range(1, total);
  }, slow);

  it('spreads contacts, their type index entries and their email claims over all 16 shards', async () => {
    const accountId = keys.account_id;
    const contactShardSizes: number[] = [];
    for (let shard = 0; shard < contactShards; shard++) {
      const items = await queryAll({ partition: contactShardPartition(accountId, shard) });
      contactShardSizes.push(items.length);
      for (const item of items) {
        expect(item.pk).toBe(`${contactPartition(accountId)}#${Number(item.id) % 16}`);
        expect(item.sk).toBe(idSortKey(Number(item.id)));
        expect(item.gsi1pk).toBe(contactsOfTypeShardPartition(accountId, Number(item.contact_type_id), Number(item.id) % 16));
      }
    }
    // Sequential ids fill the shards round-robin: 1,200 / 16 = 75 each.
    expect(contactShardSizes.reduce((sum, size) => sum + size, 0)).toBe(total);
    expect(Math.min(...contactShardSizes)).toBe(75);
    expect(Math.max(...contactShardSizes)).toBe(75);
    // Nothing is left in the unsharded partition.
    expect(await queryAll({ partition: contactPartition(accountId) })).toEqual([]);

    for (const typeId of [customers, leads]) {
      let indexed = 0;
      for (let shard = 0; shard < contactShards; shard++) {
        const entries = await queryAll({ partition: contactsOfTypeShardPartition(accountId, typeId, shard), index: 'gsi1' });
        expect(entries.length).toBeGreaterThan(0);
        indexed += entries.length;
      }
      expect(indexed).toBe(typeId === customers ? customerCount : total - customerCount);
    }

    const claimShards = new Map<number, Item[]>();
    for (let shard = 0; shard < contactShards; shard++) {
      claimShards.set(shard, await queryAll({ partition: shardPartition(entityPartition(accountId, `contact-email#${customers}`), shard) }));
    }
    expect([...claimShards.values()].every((claims) => claims.length > 0)).toBe(true);
    expect([...claimShards.values()].reduce((sum, claims) => sum + claims.length, 0)).toBe(customerCount);
    for (const [shard, claims] of claimShards) {
      for (const claim of claims) expect(contactEmailKey(accountId, customers, String(claim.sk))).toEqual({ pk: shardPartition(entityPartition(accountId, `contact-email#${customers}`), shard), sk: claim.sk });
    }
  }, slow);

  it('pages contacts/list with limit 1000 and by default: every id once, ascending', async () => {
    expectPaged(await walk(keys, 1000), remaining, 1000);
    const whole = await listPage(keys, {});
    expect(whole.ids).toEqual(range(1, 1000));
    expect(whole.nextCursor).toEqual(expect.any(String));
  }, slow);

  it('pages contacts/list with a small limit: every id once, ascending', async () => {
    expectPaged(await walk(keys, 7), remaining, 7);
  }, slow);

  it('refuses a tampered or foreign cursor as before, and continues an unsharded-era cursor', async () => {
    const first = await listPage(keys, { limit: 3 });
    const cursor = first.nextCursor as string;
    const tampered = `${cursor.slice(0, 5)}${cursor[5] === 'A' ? 'B' : 'A'}${cursor.slice(6)}`;
    const invalid = { status: 422, body: { status: 'failed', errors: { cursor: ['The cursor field is invalid.'] } } };
    expect(await callContacts(keys, 'GET', 'contacts/list', { query: { limit: 3, cursor: tampered } })).toEqual(invalid);
    const stranger = await newAccount('Stranger');
    await callContacts(stranger, 'POST', 'contacts/add', { body: multipart({ contact_type_id: await addType(stranger, 'Mine'), email: 'a@example.com', country: us }) });
    await callContacts(stranger, 'POST', 'contacts/add', { body: multipart({ contact_type_id: await addType(stranger, 'Also mine'), email: 'b@example.com', country: us }) });
    const foreign = (await listPage(stranger, { limit: 1 })).nextCursor as string;
    expect(foreign).toEqual(expect.any(String));
    expect(await callContacts(keys, 'GET', 'contacts/list', { query: { limit: 3, cursor: foreign } })).toEqual(invalid);

    // The cursor a page ending at contact 100 carried before sharding: keyed by the unsharded partition.
    const partition = contactPartition(keys.account_id);
    const old = signToken('list-cursor', { partition, index: '', k_pk: partition, k_sk: idSortKey(100) });
    expect((await listPage(keys, { limit: 5, cursor: old })).ids).toEqual([101, 102, 103, 104, 105]);
  }, slow);

  it('finds every contact of a type through the by-type readers, in id order', async () => {
    for (const [typeId, expected] of [
      [customers, customerIds],
      [leads, leadIds],
    ] as const) {
      const batches: number[][] = [];
      await forEachContactOfType(keys.account_id, typeId, async (contacts) => void batches.push(contacts.map((contact) => contact.id)), 200);
      expect(batches.flat()).toEqual(expected);
      expect(batches.slice(0, -1).every((batch) => batch.length === 200)).toBe(true);
      expect(batches.flat().every((id) => (typeId === customers ? id <= customerCount : id > customerCount))).toBe(true);

      // The send dispatcher's resumable reader: pages after the last id read.
      const paged: number[] = [];
      let after: number | null = null;
      for (;;) {
        const page = await contactsOfTypePage(keys.account_id, typeId, after, 333);
        if (page.length === 0) break;
        expect(page.length === 333 || paged.length + page.length === expected.length).toBe(true);
        paged.push(...page.map((contact) => contact.id));
        after = page[page.length - 1]?.id ?? null;
      }
      expect(paged).toEqual(expected);
    }
  }, slow);

  it('still pages correctly after deletions empty most of one shard and thin another', async () => {
    const doomed = [...range(1, total).filter((id) => id % 16 === 5 && id > 40), ...range(1, total).filter((id) => id % 16 === 11 && id % 3 === 0)];
    for (let start = 0; start < doomed.length; start += 40) await deleteContacts(keys.account_id, doomed.slice(start, start + 40));
    const gone = new Set(doomed);
    remaining = remaining.filter((id) => !gone.has(id));
    customerIds = customerIds.filter((id) => !gone.has(id));
    leadIds = leadIds.filter((id) => !gone.has(id));
    expect((await queryAll({ partition: contactShardPartition(keys.account_id, 5) })).map((item) => item.id)).toEqual([5, 21, 37]);

    expectPaged(await walk(keys, 1000), remaining, 1000);
    expectPaged(await walk(keys, 13), remaining, 13);
    const batches: number[] = [];
    await forEachContactOfType(keys.account_id, leads, async (contacts) => void batches.push(...contacts.map((contact) => contact.id)), 100);
    expect(batches).toEqual(leadIds);
    expect(await contactCounts(keys)).toEqual({ [customers]: customerIds.length, [leads]: leadIds.length });
  }, slow);

  it('refuses a duplicate email within a type, whatever its case, and allows it in another type', async () => {
    const accountId = keys.account_id;
    await expect(addContact(accountId, fields(customers, 'CUSTOMER7@Example.com'), {})).rejects.toBeInstanceOf(ContactEmailTaken);
    const refused = await callContacts(keys, 'POST', 'contacts/add', { body: multipart({ contact_type_id: customers, email: 'Customer8@EXAMPLE.com', country: us }) });
    expect(refused).toEqual({ status: 422, body: { status: 'failed', errors: { email: ['The email has already been taken.'] } } });

    // (Refused adds used up ids: a new contact's id is taken before its transaction.)
    const added = await addContact(accountId, fields(leads, 'Customer7@example.COM'), {});
    expect(added.id).toBeGreaterThan(total);
    remaining.push(added.id);
    leadIds.push(added.id);
    await expect(addContact(accountId, fields(leads, 'customer7@example.com'), {})).rejects.toBeInstanceOf(ContactEmailTaken);

    // A deleted contact's claim is released: its email may be used again.
    const freed = await addContact(accountId, fields(customers, 'Customer53@example.com'), {});
    expect(freed.id).toBeGreaterThan(added.id);
    remaining.push(freed.id);
    customerIds.push(freed.id);
    expect((await walk(keys, 1000)).flat()).toEqual(remaining);
  }, slow);

  it('removes every contact of a deleted type from all shards, with its claims', async () => {
    const accountId = keys.account_id;
    expect((await deleteType(keys, leads)).status).toBe(200);
    expectPaged(await walk(keys, 1000), customerIds, 1000);
    for (let shard = 0; shard < contactShards; shard++) {
      expect(await queryAll({ partition: contactsOfTypeShardPartition(accountId, leads, shard), index: 'gsi1' })).toEqual([]);
      expect(await queryAll({ partition: shardPartition(entityPartition(accountId, `contact-email#${leads}`), shard) })).toEqual([]);
    }
    const rest: number[] = [];
    await forEachContactOfType(accountId, customers, async (contacts) => void rest.push(...contacts.map((contact) => contact.id)));
    expect(rest).toEqual(customerIds);
  }, slow);
});
