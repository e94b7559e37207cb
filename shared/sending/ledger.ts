// The delivery ledger: one item per recipient of a send or automation step, claimed with a
// conditional put right before SES is called (after the recipient's turn at the rate limiter, so a
// run stopped or killed while waiting holds no claim on anyone it did not mail), so a retried batch
// never mails anyone twice. Also the marker items that let each statistics event count once per
// recipient; both live in the recipient's partition.
import { randomUUID } from 'node:crypto';
import { DeleteCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { currentTime, isoTimestamp } from '../time';
import { batchGetAll } from '../table/batch';
import { db, tableName } from '../table/client';
import { sendEventMarkerKey, sendLedgerKey } from './keys';
import { type Key } from '../table/keys';
import { isConditionFailure, putNewItem } from '../table/records';
import { encodeSendRef, type SendRef } from './send-ref';

/**
 * How long ledger and marker items are kept (TTL). Long enough that nothing re-sends or re-counts
 * a recipient while anyone still looks at the send; then DynamoDB removes them for free.
 */
const retentionSeconds = 180 * 24 * 3600;

function expiresAt(): number {
  return Math.floor(currentTime().getTime() / 1000) + retentionSeconds;
}

/** A claim this delivery holds on one recipient; only its holder may release it or mark it sent. */
export interface LedgerClaim {
  key: Key;
  claimId: string;
}

/**
 * Claim a recipient for this send: undefined when the ledger already holds them (mailed, being
 * mailed, or an earlier attempt died with the outcome unknown: never risk a second mail). A claim
 * that is never released is the record that the recipient was mailed; it needs no second write.
 */
export async function claimRecipient(ref: SendRef, email: string): Promise<LedgerClaim | undefined> {
  const key = sendLedgerKey(ref.accountId, encodeSendRef(ref), email);
  const claimId = randomUUID();
  const claimed = await putNewItem({
    ...key,
    entity: 'send-ledger',
    state: 'claimed',
    claim_id: claimId,
    email_address: email,
    claimed_at: isoTimestamp(),
    expires_at: expiresAt(),
  });
  return claimed ? { key, claimId } : undefined;
}

/**
 * The addresses (lower-cased) among `emails` the ledger already holds for this send: mailed, being
 * mailed, or with the outcome unknown. A look before anyone waits for the rate limiter, so those
 * are skipped without using a turn; the claim still decides for the others. `emails` must be
 * distinct once lower-cased.
 */
export async function claimedAmong(ref: SendRef, emails: readonly string[]): Promise<Set<string>> {
  const refText = encodeSendRef(ref);
  const byPartition = new Map(emails.map((email) => [sendLedgerKey(ref.accountId, refText, email).pk, email.toLowerCase()]));
  const keys = emails.map((email) => sendLedgerKey(ref.accountId, refText, email));
  const found = await batchGetAll(keys, { projection: { expression: 'pk' }, concurrency: 4 });
  return new Set(found.map((item) => byPartition.get(String(item.pk))).filter((email): email is string => email !== undefined));
}

/** SES gave no answer (the mail may have gone): the claim stays for good, marked for whoever looks. */
export async function markRecipientUncertain(claim: LedgerClaim): Promise<void> {
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: claim.key,
      UpdateExpression: 'SET #state = :uncertain',
      ConditionExpression: 'claim_id = :claimId',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':uncertain': 'uncertain', ':claimId': claim.claimId },
    }),
  );
}

/** SES did not take the message: give the recipient back so a later attempt may mail them. */
export async function releaseRecipient(claim: LedgerClaim): Promise<void> {
  try {
    await db().send(
      new DeleteCommand({
        TableName: tableName(),
        Key: claim.key,
        ConditionExpression: 'claim_id = :claimId',
        ExpressionAttributeValues: { ':claimId': claim.claimId },
      }),
    );
  } catch (error) {
    // Someone else's claim: not ours to remove.
    if (!isConditionFailure(error)) throw error;
  }
}

/** The marker of one statistics event for one recipient. */
export function eventMarkerKey(ref: SendRef, email: string, event: string): Key {
  return sendEventMarkerKey(ref.accountId, encodeSendRef(ref), email, event);
}

/** Claim an event marker; false when the event was already counted for this recipient. */
export function claimEventMarker(key: Key): Promise<boolean> {
  return putNewItem({ ...key, entity: 'send-event-marker', counted_at: isoTimestamp(), expires_at: expiresAt() });
}

/** Give a marker back when the count it guarded could not be written. */
export async function releaseEventMarker(key: Key): Promise<void> {
  await db().send(new DeleteCommand({ TableName: tableName(), Key: key }));
}
