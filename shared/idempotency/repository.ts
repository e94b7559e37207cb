// Idempotency records: what the first request with a client's Idempotency-Key claimed, and once it
// answered, the answer to replay. Each record expires by TTL a day after its request.
import { conditionHeld, deleteItem, getItem, putItem, unlessConditionFails, updateItem } from '../table/records';
import { idempotencyRecordKey } from './keys';

/** The answer kept for replay. */
export interface StoredAnswer {
  statusCode: number;
  headers: Record<string, string>;
  body: string;
  isBase64Encoded: boolean;
}

export type IdempotencyRecord =
  | { state: 'running'; fingerprint: string; runningUntil: number }
  | { state: 'answered'; fingerprint: string; answer: StoredAnswer };

export interface ClaimTimes {
  /** Now, epoch seconds. */
  now: number;
  /** When the record may be removed (epoch seconds). */
  expiresAt: number;
  /** Until when a running request holds the key: past it, the request is taken to have died. */
  runningUntil: number;
}

function toRecord(item: Record<string, unknown>): IdempotencyRecord {
  const fingerprint = String(item.fingerprint);
  if (item.state === 'answered') return { state: 'answered', fingerprint, answer: item.answer as StoredAnswer };
  return { state: 'running', fingerprint, runningUntil: Number(item.running_until) };
}

/**
 * Claim a client key for a request: true when this request may run (the key was free, expired, or
 * held by a request that died); otherwise the record that holds it. One conditional put.
 */
export async function claimIdempotencyKey(accountId: number, clientKey: string, fingerprint: string, times: ClaimTimes): Promise<true | IdempotencyRecord> {
  const key = idempotencyRecordKey(accountId, clientKey);
  const claimed = await conditionHeld(
    putItem({
      Item: { ...key, state: 'running', fingerprint, running_until: times.runningUntil, expires_at: times.expiresAt },
      // TTL removes expired records within days, not at once: an expired one is free.
      ConditionExpression: 'attribute_not_exists(pk) OR expires_at < :now OR (#state = :running AND running_until < :now)',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':now': times.now, ':running': 'running' },
    }),
  );
  if (claimed) return true;
  const held = await getItem(key, { consistent: true });
  // Gone between the two calls (a failed request released it): the caller may try again.
  return held ? toRecord(held) : { state: 'running', fingerprint, runningUntil: times.now };
}

/** Keep the answer of the request that claimed the key, for replay until the record expires. */
export async function keepAnswer(accountId: number, clientKey: string, fingerprint: string, answer: StoredAnswer): Promise<void> {
  // Another request took the key over after this one overran its time: its answer stands.
  await unlessConditionFails(
    updateItem({
      Key: idempotencyRecordKey(accountId, clientKey),
      UpdateExpression: 'SET #state = :answered, answer = :answer REMOVE running_until',
      ConditionExpression: 'fingerprint = :fingerprint AND #state = :running',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':answered': 'answered', ':answer': answer, ':fingerprint': fingerprint, ':running': 'running' },
    }),
  );
}

/** Free a key whose request failed (a 500 is not kept: the client's retry runs again). */
export async function releaseIdempotencyKey(accountId: number, clientKey: string, fingerprint: string): Promise<void> {
  await unlessConditionFails(
    deleteItem({
      Key: idempotencyRecordKey(accountId, clientKey),
      ConditionExpression: 'fingerprint = :fingerprint AND #state = :running',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':fingerprint': fingerprint, ':running': 'running' },
    }),
  );
}
