// The delivery ledger: one item per recipient of a send or automation step, claimed with a
// conditional put right before SES is called (after the recipient's turn at the rate limiter, so a
// run stopped or killed while waiting holds no claim on anyone it did not mail), so a retried batch
// never mails anyone twice, and marked sent or uncertain once SES answered or did not. Also the marker
// items that let each statistics event count once per recipient. Both live in the address's
// partition (ledger/keys.ts), where the entry, written as the mail goes, is also the contact
// activity's `sent` line: a delivery run killed midway loses none of them.
import { randomUUID } from 'node:crypto';
import { currentTime, isoTimestamp } from '../time';
import { batchGetAll } from '../table/batch';
import { writeAlone, type ConditionalWrite } from '../table/coalesced-writes';
import { addressPartition, addressRetentionSeconds, ledgerSortPrefix, legacyEventMarkerKey, legacyKeyOfMarker, legacySendLedgerKey, sendEventMarkerKey, sendLedgerKey } from './keys';
import { type Key } from '../table/keys';
import { deleteItem, getItem, putNewItem, queryAll, type Item } from '../table/records';
import { decodeSendRef, encodeSendRef, type SendRef } from './send-ref';

/**
 * When ledger and marker items expire (TTL): nothing re-sends or re-counts a recipient while anyone
 * still looks at the send or the contact's activity; then DynamoDB removes them for free.
 */
function expiresAt(): number {
  return Math.floor(currentTime().getTime() / 1000) + addressRetentionSeconds;
}

/**
 * Most bytes of a ledger entry with its subject (as JSON, which is never smaller than DynamoDB's
 * count of the item): within 1 KB the claim and the mark each cost one write unit.
 */
const entryBytes = 1000;

/**
 * Each claim, mark and release is a plain conditional write of its own item: the condition alone
 * decides, so a transaction would buy nothing and bill twice the write units (docs/operations.md).
 */
function ledgerWrite(write: ConditionalWrite): Promise<boolean> {
  return writeAlone(write);
}

/** A claim this delivery holds on one recipient; only its holder may release it or mark it sent. */
export interface LedgerClaim {
  key: Key;
  claimId: string;
  /** ISO 8601: when it was claimed, right before SES was called (the mail's sent time). */
  claimedAt: string;
}

/**
 * Who takes a claim, when a delivery works for one batch of a single send: the batch, and the queue
 * message and receive of it. After a crash the batch's redelivery reads its own entries back (mailed,
 * unknown), and knows a claim left by an earlier receive of the same message for a dead one.
 */
export interface LedgerHolder {
  batchId: string;
  messageId: string;
  receive: number;
}

/**
 * A recipient's ledger entry: `claimed` from right before SES is called until SES answers, then `sent`
 * (SES took the mail) or `uncertain` (no answer: the mail may have gone). A refused or deferred mail
 * removes the entry. Entries written before states were kept read as `claimed`.
 */
export interface LedgerEntry {
  key: Key;
  state: 'claimed' | 'sent' | 'uncertain';
  claimId: string;
  /** Milliseconds since the epoch. */
  claimedAt: number;
  holder: LedgerHolder | undefined;
}

function entryOf(item: Item): LedgerEntry {
  const state = item.state === 'sent' || item.state === 'uncertain' ? item.state : 'claimed';
  const holder =
    typeof item.batch_id === 'string' && typeof item.holder_message === 'string'
      ? { batchId: item.batch_id, messageId: item.holder_message, receive: Number(item.holder_receive ?? 0) }
      : undefined;
  return { key: { pk: String(item.pk), sk: String(item.sk) }, state, claimId: String(item.claim_id ?? ''), claimedAt: Date.parse(String(item.claimed_at ?? '')) || 0, holder };
}

/**
 * Claim a recipient for this send: undefined when the ledger already holds them (mailed, being
 * mailed, or an earlier attempt died with the outcome unknown: never risk a second mail).
 */
export function claimRecipient(ref: SendRef, email: string, holder?: LedgerHolder, subject?: string): Promise<LedgerClaim | undefined> {
  const claim = claimWrite(ref, email, holder, subject);
  return ledgerWrite(claim.write).then((claimed) => (claimed ? claim.claim : undefined));
}

/**
 * Mark one claim `sent` (SES took its mail), then claim the next recipient: the mark is written before
 * the claim is asked for, so a worker never holds two claims whose outcome the ledger does not know,
 * and a kill between them leaves no more recipients uncertain than there were SES calls in flight.
 * Each has its own answer, as `markRecipientSent` and `claimRecipient` give it (a mark that fails
 * with an error still lets the claim be tried: the claimed recipient has not been mailed yet).
 */
export function markSentAndClaim(
  sent: LedgerClaim,
  ref: SendRef,
  email: string,
  holder?: LedgerHolder,
  subject?: string,
): { marked: Promise<boolean>; claimed: Promise<LedgerClaim | undefined> } {
  const marked = markRecipientSent(sent);
  const claimed = marked.then(
    () => claimRecipient(ref, email, holder, subject),
    () => claimRecipient(ref, email, holder, subject),
  );
  return { marked, claimed };
}

/**
 * The claim's item. `s`, the mail's subject, is what the contact's `sent` line shows; a subject that
 * would take the entry past 1 KB is left out (the line then shows the send's or step's subject), so
 * the claim and the mark never cost more than a write unit each.
 */
function claimWrite(ref: SendRef, email: string, holder?: LedgerHolder, subject?: string): { claim: LedgerClaim; write: ConditionalWrite } {
  const key = sendLedgerKey(ref.accountId, encodeSendRef(ref), email);
  const claimId = randomUUID();
  const claimedAt = isoTimestamp();
  const item: Item = {
    ...key,
    entity: 'send-ledger',
    state: 'claimed',
    claim_id: claimId,
    email_address: email,
    claimed_at: claimedAt,
    ...(holder ? { batch_id: holder.batchId, holder_message: holder.messageId, holder_receive: holder.receive } : {}),
    expires_at: expiresAt(),
  };
  // Measured with the longest state the mark may set.
  if (subject !== undefined && Buffer.byteLength(JSON.stringify({ ...item, state: 'uncertain', s: subject }), 'utf8') <= entryBytes) item.s = subject;
  return { claim: { key, claimId, claimedAt }, write: { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } } };
}

const keyText = (key: Key) => `${key.pk}|${key.sk}`;

/**
 * The entries the ledger holds among `emails` for this send, by lower-cased address. A look before
 * anyone waits for the rate limiter (eventually consistent: the conditional writes still decide).
 * An entry stored before the ledger was kept by address counts as well (it is never claimed again),
 * unless `before: false` says none can be there (half a read unit a recipient: every key read is billed).
 * `emails` must be distinct once lower-cased.
 */
export async function ledgerEntriesAmong(ref: SendRef, emails: readonly string[], options: { before?: boolean } = {}): Promise<Map<string, LedgerEntry>> {
  const refText = encodeSendRef(ref);
  const lookBefore = options.before !== false;
  const keys = emails.map((email) => ({ email: email.toLowerCase(), now: sendLedgerKey(ref.accountId, refText, email), before: legacySendLedgerKey(ref.accountId, refText, email) }));
  const wanted = keys.flatMap((key) => (lookBefore ? [key.now, key.before] : [key.now]));
  const found = new Map((await batchGetAll(wanted, { concurrency: 4 })).map((item) => [keyText({ pk: String(item.pk), sk: String(item.sk) }), item]));
  const entries = new Map<string, LedgerEntry>();
  for (const key of keys) {
    const item = found.get(keyText(key.now)) ?? found.get(keyText(key.before));
    if (item) entries.set(key.email, entryOf(item));
  }
  return entries;
}

/** One recipient's entry, strongly consistent (stored before the ledger was kept by address too); undefined when the ledger does not hold them. */
export async function readLedgerEntry(ref: SendRef, email: string): Promise<LedgerEntry | undefined> {
  const refText = encodeSendRef(ref);
  const item =
    (await getItem(sendLedgerKey(ref.accountId, refText, email), { consistent: true })) ??
    (await getItem(legacySendLedgerKey(ref.accountId, refText, email), { consistent: true }));
  return item ? entryOf(item) : undefined;
}

/** One mail to an address as its ledger entry tells it: the contact activity's `sent` line. */
export interface MailOfAddress {
  /** The encoded send reference. */
  refText: string;
  ref: SendRef;
  /** ISO 8601: when it was claimed, right before SES was called. */
  claimedAt: string;
  state: LedgerEntry['state'];
  /** The subject it was sent with, when the entry keeps it. */
  subject?: string;
}

/**
 * Every ledger entry of an address in the account (all pages of its `mail#` items), in no particular
 * order. Bounded: an address is mailed at most a few times a day, and entries expire after 400 days.
 */
export async function mailsOfAddress(accountId: number, email: string): Promise<MailOfAddress[]> {
  const items = await queryAll({ partition: addressPartition(accountId, email), beginsWith: ledgerSortPrefix });
  return items.flatMap((item) => {
    const refText = String(item.sk).slice(ledgerSortPrefix.length);
    let ref: SendRef;
    try {
      ref = decodeSendRef(refText);
    } catch {
      return [];
    }
    const entry = entryOf(item);
    return [{ refText, ref, claimedAt: String(item.claimed_at ?? ''), state: entry.state, ...(typeof item.s === 'string' ? { subject: item.s } : {}) }];
  });
}

/** Move a claim on from `claimed`, only while it is still that claim; false when it is not any more. */
function settleClaim(key: Key, claimId: string, state: 'sent' | 'uncertain'): Promise<boolean> {
  return ledgerWrite(settleWrite(key, claimId, state));
}

function settleWrite(key: Key, claimId: string, state: 'sent' | 'uncertain'): ConditionalWrite {
  return {
    Update: {
      Key: key,
      UpdateExpression: 'SET #state = :state',
      ConditionExpression: 'claim_id = :claimId AND #state = :claimed',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':state': state, ':claimId': claimId, ':claimed': 'claimed' },
    },
  };
}

/**
 * SES took the mail. False when the claim was no longer `claimed`: a redelivery took its holder for
 * dead and marked it uncertain, and uncertain it stays (each recipient is counted once, as one or the other).
 */
export function markRecipientSent(claim: LedgerClaim): Promise<boolean> {
  return settleClaim(claim.key, claim.claimId, 'sent');
}

/** SES gave no answer (the mail may have gone): the claim stays for good, marked uncertain. False when it already was. */
export function markRecipientUncertain(claim: LedgerClaim): Promise<boolean> {
  return settleClaim(claim.key, claim.claimId, 'uncertain');
}

/** A claim whose holder is gone without a word: the outcome is unknown. False when it moved on meanwhile. */
export function markClaimUncertain(entry: LedgerEntry): Promise<boolean> {
  return settleClaim(entry.key, entry.claimId, 'uncertain');
}

/**
 * SES did not take the message: give the recipient back so a later attempt may mail them. False
 * when the claim was no longer ours to give back (a redelivery marked it uncertain meanwhile).
 */
export function releaseRecipient(claim: LedgerClaim): Promise<boolean> {
  return ledgerWrite({
    Delete: {
      Key: claim.key,
      ConditionExpression: 'claim_id = :claimId AND #state = :claimed',
      ExpressionAttributeNames: { '#state': 'state' },
      ExpressionAttributeValues: { ':claimId': claim.claimId, ':claimed': 'claimed' },
    },
  });
}

/** The marker of one statistics event for one recipient. */
export function eventMarkerKey(ref: SendRef, email: string, event: string): Key {
  return sendEventMarkerKey(ref.accountId, encodeSendRef(ref), email, event);
}

/** Where the same marker was stored before the ledger was kept by address (read only). */
export function legacyMarkerKey(ref: SendRef, email: string, event: string): Key {
  return legacyEventMarkerKey(ref.accountId, encodeSendRef(ref), email, event);
}

/**
 * Claim an event marker; false when the event was already counted for this recipient. Kept as long
 * as the ledger entry (a delivered marker is also the contact activity's `delivered`), unless
 * `keepSeconds` says otherwise. A first claim also looks whether the marker was stored before the
 * ledger was kept by address (the mail went before): then the event was counted already. `lookBefore:
 * false` skips that look (half a read unit) for an event of a mail sent since, which nothing counted there.
 */
export async function claimEventMarker(key: Key, options: { keepSeconds?: number; lookBefore?: boolean } = {}): Promise<boolean> {
  const expires = options.keepSeconds === undefined ? expiresAt() : Math.floor(currentTime().getTime() / 1000) + options.keepSeconds;
  if (!(await putNewItem({ ...key, entity: 'send-event-marker', counted_at: isoTimestamp(), expires_at: expires }))) return false;
  const before = options.lookBefore === false ? undefined : legacyKeyOfMarker(key);
  return before === undefined || (await getItem(before, { consistent: false, projection: ['pk'] })) === undefined;
}

/** Give a marker back when the count it guarded could not be written. */
export async function releaseEventMarker(key: Key): Promise<void> {
  await deleteItem({ Key: key });
}
