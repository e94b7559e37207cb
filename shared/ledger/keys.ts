// Keys of the sending pipeline: per-recipient ledger entries, event markers and delivery batches.
import { type Key, entityPartition } from '../table/keys';

// Sending (the delivery ledger, event markers, bounce suppressions, dispatch state)

/**
 * The partition of one address in an account (lower-cased): its contact activity, and the ledger
 * entry and event markers of every mail sent to it. A mail's ledger entry is then its activity's
 * `sent` line and its delivered marker its `delivered` line, with no item of their own; and a
 * send's writes still spread over one partition per recipient.
 */
export function addressPartition(accountId: number, email: string): string {
  return entityPartition(accountId, `contact-activity#${email.trim().toLowerCase()}`);
}

/** The sort-key prefix of an address's ledger entries (one per send or automation step that mailed it). */
export const ledgerSortPrefix = 'mail#';

/** The sort-key prefix of an address's event markers. */
export const markerSortPrefix = 'mark#';

/**
 * How long an address's ledger entries and markers are kept (TTL): as long as its activity (400
 * days), since the entry is the activity's `sent` line; DynamoDB removes them at no write cost.
 */
export const addressRetentionSeconds = 400 * 24 * 3600;

/**
 * The ledger item claimed before a recipient is mailed (`ref` an encoded SendRef): its existence means
 * "mailed, or being mailed". Its key follows from the send and the address alone, so the claim stays
 * one conditional put.
 */
export function sendLedgerKey(accountId: number, ref: string, email: string): Key {
  return { pk: addressPartition(accountId, email), sk: `${ledgerSortPrefix}${ref}` };
}

/** A marker that one statistics event (delivered, a unique open, ...) was counted for this recipient. */
export function sendEventMarkerKey(accountId: number, ref: string, email: string, event: string): Key {
  return { pk: addressPartition(accountId, email), sk: `${markerSortPrefix}${ref}#${event}` };
}

// The layout before the ledger was kept by address: one partition per send and recipient. Nothing is
// written there any more; entries and markers stored there are read beside the new ones until they
// expire (180 days after they were written; docs/operations.md).

function legacyRecipientPartition(accountId: number, ref: string, email: string): string {
  return entityPartition(accountId, `send-recipient#${ref}#${email.toLowerCase()}`);
}

/** Where a recipient's ledger entry was stored before. */
export function legacySendLedgerKey(accountId: number, ref: string, email: string): Key {
  return { pk: legacyRecipientPartition(accountId, ref, email), sk: 'LEDGER' };
}

/** Where a recipient's event marker was stored before. */
export function legacyEventMarkerKey(accountId: number, ref: string, email: string, event: string): Key {
  return { pk: legacyRecipientPartition(accountId, ref, email), sk: `EVENT#${event}` };
}

/** Where the marker stored now under `key` was stored before; undefined for a key that is no marker. */
export function legacyKeyOfMarker(key: Key): Key | undefined {
  const address = /^A#(\d+)#contact-activity#(.+)$/.exec(key.pk);
  const marker = /^mark#([^#]+)#(.+)$/.exec(key.sk);
  if (!address || !marker) return undefined;
  return legacyEventMarkerKey(Number(address[1]), marker[1] as string, address[2] as string, marker[2] as string);
}

/** Marks one delivery batch of a send as settled, so a redelivered batch is never counted twice. */
export function deliveryBatchKey(accountId: number, ref: string, batchId: string): Key {
  return { pk: entityPartition(accountId, `delivery-batch#${ref}`), sk: batchId };
}

/** Which people's engagement an address's record holds: its latest open, or its latest click. */
export type EngagementKind = 'open' | 'click';

/** Shards of each day's engagement index partition, so a day of opens never makes one hot partition. */
export const engagementDayShards = 16;

/** An address's latest open (or click) of any mail of the account: one small item, in the address's own partition. */
export function engagementKey(accountId: number, email: string, kind: EngagementKind): Key {
  return { pk: entityPartition(accountId, `engagement#${email.trim().toLowerCase()}`), sk: kind };
}

/** The gsi1 partition listing the addresses whose latest open (or click) fell on one UTC day, in one of its shards. */
export function engagementDayPartition(accountId: number, kind: EngagementKind, day: string, shard: number): string {
  return `${entityPartition(accountId, `engaged-on#${kind}#${day}`)}#${shard}`;
}
