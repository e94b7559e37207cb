// Keys of contact types, contacts and custom fields.
//
// Contacts are write-sharded. One account may hold 1,000,000 contacts, and a CSV import (5,000 rows/s)
// or a large send would otherwise write or read one partition, past DynamoDB's per-partition limits
// (1,000 WCU/s, 3,000 RCU/s); ids grow monotonically, so every write lands at the end of the key
// range and DynamoDB's split-for-heat cannot help. Each contact partition is therefore split into
// `contactShards` partitions `<partition>#<shard>` (sort keys unchanged):
//   - the contact item:        pk `A#<account>#contact#<id % 16>`, sk the padded id;
//   - the by-type index entry: gsi1pk `A#<account>#contact-type#<type>#contact#<id % 16>`, gsi1sk the padded id;
//   - the email claim:         pk `A#<account>#contact-email#<type>#<fnv1a(lower-cased email) % 16>`, sk the lower-cased email.
// Every key stays computable from the id (or the email) alone, so point reads and writes (GetItem,
// Update, Delete, transactions, BatchGet) cost exactly what they did. Ids are handed out in sequence,
// so consecutive contacts fill the shards round-robin.
// Read cost: a page of the account's contact list (in id order) is a k-way merge of up to 16 Queries
// issued in parallel, each reading about limit/16 + 2 items (a shard that runs dry is read again);
// a full pass over one type's contacts costs about 16 Queries more than an unsharded pass (each shard
// ends with its own last page); point reads cost the same.
import { CONTACT_TYPE } from '../contact-types/keys';
import { type Key, entityPartition, fnv1a, idSortKey, shardPartition } from '../table/keys';

// Contacts

export const CONTACT = 'contact';

/**
 * Shards of each contact partition. An import of 5,000 rows/s writes per row the contact and its
 * email claim in one transaction (a transactional write costs 2 WCU per KB: 2x), and the GSI writes
 * the by-type index entry (1 WCU per KB):
 *   contact items 5,000 x 2 = 10,000 WCU/s over 16 shards = 625 WCU/s a partition;
 *   email claims  5,000 x 2 = 10,000 WCU/s over 16 shards = 625 WCU/s a partition;
 *   index entries 5,000 x 1 =  5,000 WCU/s over 16 shards = 313 WCU/s a partition;
 * each under DynamoDB's 1,000 WCU/s per partition (16 x 1,000 = 16,000 WCU/s of room per kind), with
 * headroom for items a little over 1 KB and uneven email hashing. 8 shards would need 1,250.
 */
export const contactShards = 16;

/** The shard of a contact's item and its by-type index entry: by id, so consecutive ids go round-robin. */
export function contactShardOf(id: number): number {
  return id % contactShards;
}

/** The shard of an email's claim within a type: by a hash of the lower-cased email, so from the email alone. */
export function contactEmailShardOf(email: string): number {
  return fnv1a(email.toLowerCase()) % contactShards;
}

/** A contact's own item, by id, in shard `id % contactShards` of the account's contact partition. */
export function contactKey(accountId: number, id: number): Key {
  return { pk: contactShardPartition(accountId, contactShardOf(id)), sk: idSortKey(id) };
}

/**
 * The account's contact partition as one list: no item has it as its pk (items live in its shards),
 * but list cursors are bound to it.
 */
export function contactPartition(accountId: number): string {
  return entityPartition(accountId, CONTACT);
}

/** One shard of the account's contact partition; each lists its contacts in id order. */
export function contactShardPartition(accountId: number, shard: number): string {
  return shardPartition(contactPartition(accountId), shard);
}

/** The gsi1 partition of one contact type's contacts, as one list (its contacts are in its shards). */
export function contactsOfTypePartition(accountId: number, contactTypeId: number): string {
  return entityPartition(accountId, `${CONTACT_TYPE}#${contactTypeId}#${CONTACT}`);
}

/** One shard of a contact type's gsi1 partition (reads by type and the contact-type cascade). */
export function contactsOfTypeShardPartition(accountId: number, contactTypeId: number, shard: number): string {
  return shardPartition(contactsOfTypePartition(accountId, contactTypeId), shard);
}

/** The gsi1 attributes that place a contact in its type's partition (shard `id % contactShards`), in id order. */
export function contactOfTypeIndexKey(accountId: number, contactTypeId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: contactsOfTypeShardPartition(accountId, contactTypeId, contactShardOf(id)), gsi1sk: idSortKey(id) };
}

/** The item that claims an email within a contact type (case-insensitive), so two contacts never share it. */
export function contactEmailKey(accountId: number, contactTypeId: number, email: string): Key {
  const address = email.toLowerCase();
  return { pk: shardPartition(entityPartition(accountId, `contact-email#${contactTypeId}`), contactEmailShardOf(address)), sk: address };
}
