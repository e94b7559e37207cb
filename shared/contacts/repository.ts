// Contacts: every table access for a contact, its email claim within its type and its type's count.
// Writes answer what changed; the contact service (contact-service.ts) brings segments and automations along.
import { ContactEmailTaken, ContactTypeUnavailable } from './errors';
import { isoTimestamp } from '../time';
import { deleteAllOrNothing, type Companions } from '../table/bulk-delete';
import { confirmedWithoutAsking, contactAfterWrite, contactFitsOneItem, contactItem, contactTooLargeMessage, fieldsByName, toContactRecord, type ContactFields, type CustomValues, type Subscription } from './items';
import { optInMailPut } from './opt-in-outbox';
import type { ContactRecord } from './record';
import { listCustomFields, type CustomField } from '../custom-fields/repository';
import { RecordNotFound } from '../table/errors';
import { ValidationError } from '../errors';
import { nextId } from '../table/ids';
import { CONTACT, contactEmailKey, contactKey, contactPartition, contactShards, contactsOfTypeShardPartition } from './keys';
import { contactTypeClosingAttribute, contactTypeKey } from '../contact-types/keys';
import { idSortKey } from '../table/keys';
import { mapPage, queryShardedListPage, type ListPage, type PageRequest } from '../table/pages';
import { getItem, getItems, queryPage, queryPageAfter, type Item } from '../table/records';
import { pageReadSize, ShardMerge } from '../table/shard-merge';
import { cancellationCodes, transactWrite, type TransactionAction } from '../table/transactions';

export type { ContactFields, CustomValues } from './items';

/** Conflicting transactions are retried this many times before the request fails. */
const maxConflictRetries = 6;

/** Change a type's `contacts_count`; a type may only gain contacts while it exists and is not closing. */
export function contactsCountChange(accountId: number, contactTypeId: number, delta: number): TransactionAction {
  return {
    Update: {
      Key: contactTypeKey(accountId, contactTypeId),
      UpdateExpression: 'ADD contacts_count :delta',
      ConditionExpression: delta > 0 ? 'attribute_exists(pk) AND attribute_not_exists(#closing)' : 'attribute_exists(pk)',
      ...(delta > 0 ? { ExpressionAttributeNames: { '#closing': contactTypeClosingAttribute } } : {}),
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

/** Claim an email within a type for a contact; fails when another contact holds it. */
export function emailClaim(record: ContactRecord): TransactionAction {
  return {
    Put: {
      Item: { ...contactEmailKey(record.user_id, record.contact_type_id, record.email), entity: 'contact-email', contact_id: record.id },
      ConditionExpression: 'attribute_not_exists(pk)',
    },
  };
}

function emailRelease(record: Pick<ContactRecord, 'user_id' | 'contact_type_id' | 'email'>): TransactionAction {
  return { Delete: { Key: contactEmailKey(record.user_id, record.contact_type_id, record.email) } };
}

export async function getContact(accountId: number, id: number): Promise<ContactRecord> {
  const [item, customFields] = await Promise.all([getItem(contactKey(accountId, id)), listCustomFields(accountId)]);
  if (!item) throw new RecordNotFound(CONTACT, id);
  return toContactRecord(item, fieldsByName(customFields));
}

/** The contacts of one type at these addresses (case-insensitive): their email claims, then the contacts. */
export async function contactsOfTypeAt(accountId: number, contactTypeId: number, emails: readonly string[]): Promise<ContactRecord[]> {
  if (emails.length === 0) return [];
  const claims = await getItems([...new Set(emails.map((email) => email.trim().toLowerCase()))].map((email) => contactEmailKey(accountId, contactTypeId, email)));
  return [...(await getContacts(accountId, claims.map((claim) => Number(claim.contact_id)))).values()];
}

/** The contacts among `ids` that exist (one BatchGetItem per 100), by id. */
export async function getContacts(accountId: number, ids: readonly number[]): Promise<Map<number, ContactRecord>> {
  if (ids.length === 0) return new Map();
  const [items, customFields] = await Promise.all([getItems([...new Set(ids)].map((id) => contactKey(accountId, id))), listCustomFields(accountId)]);
  const fields = fieldsByName(customFields);
  return new Map(items.map((item) => [Number(item.id), toContactRecord(item, fields)]));
}

/** One page of the account's contacts, in id order: a merge of the contact partition's shards (see keys.ts). */
export async function listContactsPage(accountId: number, page: PageRequest): Promise<ListPage<ContactRecord>> {
  const [items, customFields] = await Promise.all([
    queryShardedListPage({ partition: contactPartition(accountId), shards: contactShards }, page),
    listCustomFields(accountId),
  ]);
  const fields = fieldsByName(customFields);
  return mapPage(items, (item) => toContactRecord(item, fields));
}

/** A merge of the shards of one contact type's gsi1 partition, in id order, from just after contact `after`. */
function contactsOfTypeMerge(accountId: number, contactTypeId: number, after: number | null): ShardMerge<Item> {
  return new ShardMerge<Item>(
    contactShards,
    (item) => String(item.gsi1sk),
    async (shard, from, limit) => {
      const page = await queryPageAfter({ partition: contactsOfTypeShardPartition(accountId, contactTypeId, shard), index: 'gsi1', after: from, limit });
      return { items: page.items, more: page.next !== undefined };
    },
    after === null ? undefined : idSortKey(after),
  );
}

/**
 * Page through the contacts of one type in id order, handing each page (of `pageSize`, the last
 * smaller) to `onBatch` before reading the next. The type's index is sharded: each shard is read
 * in Queries of `pageSize` and merged, so a whole pass costs about 16 Queries more than one over an
 * unsharded partition and holds up to 16 x `pageSize` read-ahead contacts in memory.
 */
export async function forEachContactOfType(
  accountId: number,
  contactTypeId: number,
  onBatch: (contacts: ContactRecord[]) => Promise<void>,
  pageSize = 500,
): Promise<void> {
  const fields = fieldsByName(await listCustomFields(accountId));
  const merge = contactsOfTypeMerge(accountId, contactTypeId, null);
  for (;;) {
    const items = await merge.take(pageSize, () => pageSize);
    if (items.length > 0) await onBatch(items.map((item) => toContactRecord(item, fields)));
    if (items.length < pageSize) return;
  }
}

/**
 * The next `limit` contacts of one type in id order after contact `after` (null: from the first):
 * a resumable reader whose position is just the last contact id (the send dispatcher keeps it in its
 * cursor). Up to 16 Queries in parallel, each for about limit/16 contacts.
 */
export async function contactsOfTypePage(accountId: number, contactTypeId: number, after: number | null, limit: number): Promise<ContactRecord[]> {
  const [items, customFields] = await Promise.all([contactsOfTypeMerge(accountId, contactTypeId, after).take(limit, pageReadSize), listCustomFields(accountId)]);
  const fields = fieldsByName(customFields);
  return items.map((item) => toContactRecord(item, fields));
}

/**
 * Run a transaction. DynamoDB cancels one that meets another transaction on the same item (two
 * adds counting into one type) with `TransactionConflict`; that is retried with backoff, while a
 * failed condition is the caller's to answer.
 */
export async function transact(actions: TransactionAction[]): Promise<void> {
  for (let attempt = 0; ; attempt++) {
    try {
      await transactWrite(actions);
      return;
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes?.includes('TransactionConflict') || codes.includes('ConditionalCheckFailed') || attempt >= maxConflictRetries) throw error;
      await new Promise((wait) => setTimeout(wait, Math.min(1000, 20 * 2 ** attempt) * (0.5 + Math.random())));
    }
  }
}

/**
 * Add a contact: the contact, its email claim and its type's count change together or not at all
 * (a pending contact's owed confirmation mail too).
 */
export async function insertContact(
  accountId: number,
  input: ContactFields,
  customValues: CustomValues,
  knownFields?: Map<string, CustomField>,
  subscription: Subscription = confirmedWithoutAsking,
): Promise<ContactRecord> {
  const fields = knownFields ?? fieldsByName(await listCustomFields(accountId));
  const id = await nextId(accountId, CONTACT);
  const record = contactAfterWrite(accountId, id, input, customValues, fields, isoTimestamp(), undefined, subscription);
  if (!contactFitsOneItem(record, fields)) throw ValidationError.of('custom_field', contactTooLargeMessage);
  try {
    await transact([
      emailClaim(record),
      { Put: { Item: contactItem(record, fields), ConditionExpression: 'attribute_not_exists(pk)' } },
      contactsCountChange(accountId, record.contact_type_id, 1),
      ...(record.subscription_status === 'pending' ? [optInMailPut(record)] : []),
    ]);
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.[0] === 'ConditionalCheckFailed') throw new ContactEmailTaken();
    if (codes?.[2] === 'ConditionalCheckFailed') throw new ContactTypeUnavailable(record.contact_type_id);
    throw error;
  }
  return record;
}

/**
 * Replace a contact's fields; custom values not given are kept. A change of email or type moves
 * the email claim, and a change of type moves one count between the types, in the same transaction.
 * The write is conditioned on the email and type read, so a concurrent change is retried, never lost.
 */
export async function replaceContact(
  accountId: number,
  id: number,
  input: ContactFields,
  customValues: CustomValues,
  knownFields?: Map<string, CustomField>,
): Promise<{ before: ContactRecord; after: ContactRecord }> {
  const fields = knownFields ?? fieldsByName(await listCustomFields(accountId));
  for (let attempt = 0; ; attempt++) {
    const item = await getItem(contactKey(accountId, id));
    if (!item) throw new RecordNotFound(CONTACT, id);
    const before = toContactRecord(item, fields);
    const after = contactAfterWrite(accountId, id, input, customValues, fields, isoTimestamp(), before);
    if (!contactFitsOneItem(after, fields)) throw ValidationError.of('custom_field', contactTooLargeMessage);
    const movesClaim = before.contact_type_id !== after.contact_type_id || before.email.toLowerCase() !== after.email.toLowerCase();
    const movesType = before.contact_type_id !== after.contact_type_id;
    const actions: TransactionAction[] = [
      {
        Put: {
          Item: contactItem(after, fields),
          ConditionExpression: 'email = :email AND contact_type_id = :type',
          ExpressionAttributeValues: { ':email': item.email, ':type': item.contact_type_id },
        },
      },
    ];
    if (movesClaim) actions.push(emailClaim(after), emailRelease(before));
    if (movesType) actions.push(contactsCountChange(accountId, after.contact_type_id, 1), contactsCountChange(accountId, before.contact_type_id, -1));
    try {
      await transact(actions);
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      if (movesClaim && codes[1] === 'ConditionalCheckFailed') throw new ContactEmailTaken();
      if (movesType && codes[3] === 'ConditionalCheckFailed') throw new ContactTypeUnavailable(after.contact_type_id);
      if (codes[0] === 'ConditionalCheckFailed' && attempt < 3) continue;
      throw error;
    }
    return { before, after };
  }
}

/**
 * What else deleting each contact must write in its own transaction (its segment memberships),
 * planned by the caller from the contacts as just read, in the order given.
 */
export type ContactDeletionCompanions = (contacts: ContactRecord[]) => Promise<Companions[]>;

/**
 * Delete every listed contact or none (any unknown id is not found), each in one transaction with
 * its email claim, its type's count and what `companions` adds; answers the contacts deleted here
 * (one deleted meanwhile by another request counts as deleted, and is not among them). The delete is
 * conditioned on the contact's email, type and update time, so one changed since it was read is read
 * again. See deleteAllOrNothing for groups, retries and resuming an interrupted request.
 */
export async function removeContacts(accountId: number, ids: number[], companions?: ContactDeletionCompanions): Promise<ContactRecord[]> {
  const fields = fieldsByName(await listCustomFields(accountId));
  const deleted = await deleteAllOrNothing({
    accountId,
    entity: CONTACT,
    keys: ids.map((id) => contactKey(accountId, id)),
    versionAttributes: ['email', 'contact_type_id', 'updated_at'],
    plan: async (items) => {
      const contacts = items.map((item) => toContactRecord(item, fields));
      const extra = companions ? await companions(contacts) : [];
      return contacts.map((contact, index) => ({
        writes: [emailRelease(contact), ...(extra[index]?.writes ?? [])],
        counters: [{ key: contactTypeKey(accountId, contact.contact_type_id), attribute: 'contacts_count', delta: -1 }, ...(extra[index]?.counters ?? [])],
      }));
    },
  });
  return deleted.map((item) => toContactRecord(item, fields));
}

/**
 * Remove every contact of a type (the contact-type delete cascade), page by page, with their
 * email claims. The type must already be closing, so no contact joins it meanwhile. Passes over
 * the index (each shard of it in turn, in no particular order) repeat until one finds nothing new,
 * so contacts the index showed late are removed too, and each contact is counted out of its
 * segments exactly once: each page of removed contacts is handed to `onRemoved`. `keepGoing` is
 * asked before each page; `done` says whether the type has no contact left.
 */
export async function removeContactsOfType(
  accountId: number,
  contactTypeId: number,
  onRemoved: (contacts: ContactRecord[]) => Promise<void>,
  keepGoing: () => boolean = () => true,
): Promise<{ removed: number; done: boolean }> {
  const fields = fieldsByName(await listCustomFields(accountId));
  const removed = new Set<number>();
  let foundNew: boolean;
  do {
    foundNew = false;
    for (let shard = 0; shard < contactShards; shard++) {
      let cursor: Record<string, unknown> | undefined;
      do {
        // 49 contacts and their claims: 98 actions, inside the 100-action transaction limit.
        const page = await queryPage({ partition: contactsOfTypeShardPartition(accountId, contactTypeId, shard), index: 'gsi1', limit: 49, cursor });
        cursor = page.next;
        const contacts = page.items.map((item: Item) => toContactRecord(item, fields)).filter((contact) => !removed.has(contact.id));
        if (contacts.length === 0) continue;
        // Each page is whole (its contacts and claims in one transaction): stopping before one leaves
        // the rest for the next run, which finds them the same way (emptied shards read as nothing).
        if (!keepGoing()) return { removed: removed.size, done: false };
        foundNew = true;
        await transact(contacts.flatMap((contact) => [{ Delete: { Key: contactKey(accountId, contact.id) } }, emailRelease(contact)]));
        for (const contact of contacts) removed.add(contact.id);
        await onRemoved(contacts);
      } while (cursor);
    }
  } while (foundNew);
  return { removed: removed.size, done: true };
}
