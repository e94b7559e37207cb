// Keys of single sends, their id index and their dispatch state.
import { type Key, entityPartition, idSortKey } from '../table/keys';

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

/** A single send's dispatch progress (cursor, fan-out and settlement counts), apart from the API record. */
export function singleSendDispatchKey(accountId: number, utr: string): Key {
  return { pk: entityPartition(accountId, 'single-send-dispatch'), sk: utr };
}
