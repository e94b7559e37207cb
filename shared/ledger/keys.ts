// Keys of the sending pipeline: per-recipient ledger entries, event markers and delivery batches.
import { type Key, entityPartition } from '../table/keys';

// Sending (the delivery ledger, event markers, bounce suppressions, dispatch state)

/**
 * The partition of one recipient of one send or automation step (`ref` is an encoded SendRef, the
 * address lower-cased): the ledger claim and the statistics markers live together, and one
 * partition per recipient spreads a large send's writes.
 */
export function sendRecipientPartition(accountId: number, ref: string, email: string): string {
  return entityPartition(accountId, `send-recipient#${ref}#${email.toLowerCase()}`);
}

/** The ledger item claimed before a recipient is mailed: its existence means "mailed, or being mailed". */
export function sendLedgerKey(accountId: number, ref: string, email: string): Key {
  return { pk: sendRecipientPartition(accountId, ref, email), sk: 'LEDGER' };
}

/** A marker that one statistics event (delivered, a unique open, ...) was counted for this recipient. */
export function sendEventMarkerKey(accountId: number, ref: string, email: string, event: string): Key {
  return { pk: sendRecipientPartition(accountId, ref, email), sk: `EVENT#${event}` };
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
