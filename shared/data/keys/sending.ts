// Keys of single sends and the sending pipeline (ledger, markers, bounces, dispatch state).
import { type Key, entityPartition, idSortKey } from './base';

// Single sends

export const SINGLE_SEND = 'single-send';

/** A single send's own item, by its utr: every single-send operation names the send by utr. */
export function singleSendKey(accountId: number, utr: string): Key {
  return { pk: singleSendPartition(accountId), sk: utr };
}

/** The partition holding an account's single-send items only (keyed by utr; the list reads the id index). */
export function singleSendPartition(accountId: number): string {
  return entityPartition(accountId, SINGLE_SEND);
}

/** The gsi1 keys that order an account's single sends by id and find one by its integer id (bulk delete). */
export function singleSendIdIndexKey(accountId: number, id: number): { gsi1pk: string; gsi1sk: string } {
  return { gsi1pk: singleSendIdIndexPartition(accountId), gsi1sk: idSortKey(id) };
}

/** The gsi1 partition listing an account's single sends in id order. */
export function singleSendIdIndexPartition(accountId: number): string {
  return entityPartition(accountId, `${SINGLE_SEND}-by-id`);
}

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

/** Addresses that hard-bounced or complained, by lower-cased address: one GetItem answers "suppressed?". */
export function bouncedAddressKey(accountId: number, email: string): Key {
  return { pk: entityPartition(accountId, 'bounced-address'), sk: email.toLowerCase() };
}

export function bouncedAddressPartition(accountId: number): string {
  return entityPartition(accountId, 'bounced-address');
}

/** A single send's dispatch progress (cursor, fan-out and settlement counts), apart from the API record. */
export function singleSendDispatchKey(accountId: number, utr: string): Key {
  return { pk: entityPartition(accountId, 'single-send-dispatch'), sk: utr };
}

/** Marks one delivery batch of a send as settled, so a redelivered batch is never counted twice. */
export function deliveryBatchKey(accountId: number, ref: string, batchId: string): Key {
  return { pk: entityPartition(accountId, `delivery-batch#${ref}`), sk: batchId };
}
