// Senders (from addresses with a postal address) and their verification state: every table access for them.
import { randomInt } from 'node:crypto';
import { currentTime, isoTimestamp, sqlTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { SENDER, senderKey, senderPartition } from './keys';
import { type Key } from '../table/keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { deleteExistingItem, getItem, putNewItem, unlessConditionFails, updateItem, withoutKeys, type Item } from '../table/records';
import { pendingIndexKeys } from '../identities/keys';

/** What a client sets on save and update; optional fields not given are null. */
export interface SenderInput {
  from_name: string;
  from_email: string;
  reply_to_email: string;
  country_id: number;
  state_id: number | null;
  city_id: number | null;
  zip_code: string | null;
  company_address: string;
  company_address2: string | null;
  nickname: string;
}

export interface Sender extends SenderInput {
  id: number;
  user_id: number;
  is_verified: 0 | 1;
  utr: string;
  /** When the last verification mail went out (`YYYY-MM-DD HH:MM:SS`); null until one has. */
  send_at: string | null;
  created_at: string;
  updated_at: string;
  deleted_at: null;
}

const base62 = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789';

/** The sender's short identifier: 10 random base62 characters (about 59 bits). */
function newUtr(): string {
  return Array.from({ length: 10 }, () => base62[randomInt(base62.length)]).join('');
}

function toSender(item: Item): Sender {
  const record = withoutKeys<Partial<Sender>>(item);
  // Built field by field so the output has the spec's order whatever order the item has.
  return {
    id: Number(record.id),
    user_id: Number(record.user_id),
    from_name: record.from_name as string,
    from_email: record.from_email as string,
    reply_to_email: record.reply_to_email as string,
    country_id: Number(record.country_id),
    state_id: record.state_id ?? null,
    city_id: record.city_id ?? null,
    zip_code: record.zip_code ?? null,
    company_address: record.company_address as string,
    company_address2: record.company_address2 ?? null,
    nickname: record.nickname as string,
    is_verified: record.is_verified === 1 ? 1 : 0,
    utr: record.utr as string,
    send_at: record.send_at ?? null,
    created_at: record.created_at as string,
    updated_at: record.updated_at as string,
    deleted_at: null,
  };
}

/** A conditional update on one sender; the item before the change, or undefined when the condition failed. */
async function updateIf(
  key: Key,
  update: { expression: string; condition: string; names: Record<string, string>; values?: Record<string, unknown> },
): Promise<Item | undefined> {
  const result = await unlessConditionFails(
    updateItem({
      Key: key,
      UpdateExpression: update.expression,
      ConditionExpression: update.condition,
      ExpressionAttributeNames: update.names,
      ...(update.values ? { ExpressionAttributeValues: update.values } : {}),
      ReturnValues: 'ALL_OLD',
    }),
  );
  return result && (result.Attributes ?? {});
}

async function getSenderItem(accountId: number, id: number): Promise<Item> {
  const item = await getItem(senderKey(accountId, id));
  if (!item) throw new RecordNotFound(SENDER, id);
  return item;
}

/** One page of the account's senders, in id order. */
export async function listSendersPage(accountId: number, page: PageRequest): Promise<ListPage<Sender>> {
  return mapPage(await queryListPage({ partition: senderPartition(accountId) }, page), toSender);
}

/** One sender of the account; RecordNotFound when it does not exist there. `is_verified` says whether mail may use it. */
export async function getSender(accountId: number, id: number): Promise<Sender> {
  return toSender(await getSenderItem(accountId, id));
}

/**
 * The sender as stored this moment (a strongly consistent read: a confirmation or an address change
 * just written is seen), or undefined when it does not exist. Sending decides on this read.
 */
export async function currentSender(accountId: number, id: number): Promise<Sender | undefined> {
  const item = await getItem(senderKey(accountId, id), { consistent: true });
  return item ? toSender(item) : undefined;
}

/** Store a new, unverified sender; no verification mail has gone out yet (`send_at` null). */
export async function addSender(accountId: number, input: SenderInput): Promise<Sender> {
  const id = await nextId(accountId, SENDER);
  const now = isoTimestamp();
  const sender: Sender = {
    id,
    user_id: accountId,
    ...input,
    is_verified: 0,
    utr: newUtr(),
    send_at: null,
    created_at: now,
    updated_at: now,
    deleted_at: null,
  };
  const { send_at: _notSent, ...stored } = sender;
  const created = await putNewItem({ ...senderKey(accountId, id), entity: SENDER, ...stored });
  if (!created) throw new Error(`Sender id ${id} of account ${accountId} was already taken`);
  return sender;
}

/**
 * Replace a sender's fields. A new from address is unverified again (`is_verified` 0). The change is
 * conditional on the address read, so a concurrent change of address is never mistaken for none.
 */
export async function updateSender(accountId: number, id: number, input: SenderInput): Promise<{ sender: Sender; addressChanged: boolean }> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const before = toSender(await getSenderItem(accountId, id));
    const addressChanged = before.from_email !== input.from_email;
    const changes: Record<string, unknown> = { ...input, updated_at: isoTimestamp(), ...(addressChanged ? { is_verified: 0 } : {}) };
    const names: Record<string, string> = { '#from_email_read': 'from_email' };
    const values: Record<string, unknown> = { ':from_email_read': before.from_email };
    const sets = Object.entries(changes).map(([name, value], i) => {
      names[`#a${i}`] = name;
      values[`:v${i}`] = value;
      return `#a${i} = :v${i}`;
    });
    const old = await updateIf(senderKey(accountId, id), {
      expression: `SET ${sets.join(', ')}`,
      condition: 'attribute_exists(pk) AND #from_email_read = :from_email_read',
      names,
      values,
    });
    if (old) return { sender: toSender({ ...old, ...changes }), addressChanged };
  }
  throw new Error(`Sender ${id} of account ${accountId} kept changing while being updated`);
}

export async function deleteSender(accountId: number, id: number): Promise<void> {
  const deleted = await deleteExistingItem(senderKey(accountId, id));
  if (!deleted) throw new RecordNotFound(SENDER, id);
}

export type VerificationClaim =
  | { claimed: true; sender: Sender; previousSendAt: string | null }
  | { claimed: false; retryAfterSeconds: number };

/**
 * Record that a verification mail is going out now. With `minIntervalSeconds`, only when the last one
 * went out at least that long ago: the check and the write are one conditional update, so two
 * concurrent resends cannot both pass. The sender as stored (its current address) comes back.
 */
export async function claimVerificationMail(accountId: number, id: number, minIntervalSeconds = 0): Promise<VerificationClaim> {
  const now = currentTime();
  const sendAt = sqlTimestamp(now);
  const latestAllowed = sqlTimestamp(new Date(now.getTime() - minIntervalSeconds * 1000));
  // Listed for the periodic check from now on (a confirmation takes it off): SES's link is young.
  const pending = pendingIndexKeys('sender', now.toISOString(), accountId, id);
  const old = await updateIf(senderKey(accountId, id), {
    expression: 'SET #send_at = :send_at, gsi1pk = :gsi1pk, gsi1sk = :gsi1sk',
    condition:
      minIntervalSeconds > 0 ? 'attribute_exists(pk) AND (attribute_not_exists(#send_at) OR #send_at <= :latest)' : 'attribute_exists(pk)',
    names: { '#send_at': 'send_at' },
    values: { ':send_at': sendAt, ':gsi1pk': pending.gsi1pk, ':gsi1sk': pending.gsi1sk, ...(minIntervalSeconds > 0 ? { ':latest': latestAllowed } : {}) },
  });
  if (old) {
    return { claimed: true, sender: toSender({ ...old, send_at: sendAt }), previousSendAt: (old.send_at as string | undefined) ?? null };
  }
  const current = toSender(await getSenderItem(accountId, id));
  return { claimed: false, retryAfterSeconds: Math.max(1, secondsUntilNextMail(current, minIntervalSeconds, now)) };
}

/** Whole seconds until `minIntervalSeconds` have passed since the sender's last verification mail; 0 when they have. */
export function secondsUntilNextMail(sender: Pick<Sender, 'send_at'>, minIntervalSeconds: number, now: Date = currentTime()): number {
  if (sender.send_at === null) return 0;
  const lastSent = Date.parse(`${sender.send_at.replace(' ', 'T')}Z`);
  return Math.max(0, Math.ceil((lastSent + minIntervalSeconds * 1000 - now.getTime()) / 1000));
}

/**
 * Undo a claim whose mail could not be sent, so `send_at` keeps saying when a mail really went out
 * and the next resend is not held back. Left alone when another claim has replaced ours meanwhile.
 */
export async function releaseVerificationMail(accountId: number, id: number, claimedSendAt: string, previousSendAt: string | null): Promise<void> {
  await updateIf(senderKey(accountId, id), {
    expression: previousSendAt === null ? 'REMOVE #send_at' : 'SET #send_at = :previous',
    condition: '#send_at = :claimed',
    names: { '#send_at': 'send_at' },
    values: { ':claimed': claimedSendAt, ...(previousSendAt === null ? {} : { ':previous': previousSendAt }) },
  });
}

export type Confirmation = 'verified' | 'already-verified' | 'address-changed';

/**
 * What verified a sender: its `address` (our link, or SES's verification of the address's identity),
 * or its `domain` (one of the account's verified sender domains). Deleting the domain takes back only
 * the latter. Senders verified before this was recorded count as verified by their address.
 */
export type VerificationRoute = 'address' | 'domain';

/**
 * Mark a sender verified, but only while its from address is still the one the confirmation mail
 * went to; it leaves the periodic check's index. RecordNotFound when the sender is gone.
 */
export async function confirmSenderAddress(accountId: number, id: number, confirmedEmail: string, by: VerificationRoute = 'address'): Promise<Confirmation> {
  const old = await updateIf(senderKey(accountId, id), {
    expression: 'SET #is_verified = :verified, #updated_at = :now, #by = :by REMOVE gsi1pk, gsi1sk',
    condition: 'attribute_exists(pk) AND #from_email = :email AND #is_verified = :unverified',
    names: { '#is_verified': 'is_verified', '#updated_at': 'updated_at', '#from_email': 'from_email', '#by': 'verified_by' },
    values: { ':verified': 1, ':unverified': 0, ':now': isoTimestamp(), ':email': confirmedEmail, ':by': by },
  });
  if (old) return 'verified';
  const current = toSender(await getSenderItem(accountId, id));
  if (current.from_email !== confirmedEmail) return 'address-changed';
  return 'already-verified';
}

/**
 * Take a sender's verification back (its domain is gone), only while it is verified at `email`, so a
 * change of address meanwhile is left alone; whether it was taken back. Sending holds it from now on.
 */
export async function unverifySender(accountId: number, id: number, email: string): Promise<boolean> {
  const old = await updateIf(senderKey(accountId, id), {
    expression: 'SET #is_verified = :unverified, #updated_at = :now REMOVE #by',
    condition: 'attribute_exists(pk) AND #from_email = :email AND #is_verified = :verified',
    names: { '#is_verified': 'is_verified', '#updated_at': 'updated_at', '#from_email': 'from_email', '#by': 'verified_by' },
    values: { ':verified': 1, ':unverified': 0, ':now': isoTimestamp(), ':email': email },
  });
  return old !== undefined;
}

/** A sender's verification state, with what verified it. */
export interface SenderVerification {
  id: number;
  from_email: string;
  is_verified: 0 | 1;
  verified_by: VerificationRoute;
}

/** One page of the account's senders' verification states, in id order. */
export async function listSenderVerificationsPage(accountId: number, page: PageRequest): Promise<ListPage<SenderVerification>> {
  return mapPage(await queryListPage({ partition: senderPartition(accountId) }, page), (item) => ({
    id: Number(item.id),
    from_email: String(item.from_email),
    is_verified: item.is_verified === 1 ? 1 : 0,
    verified_by: item.verified_by === 'domain' ? 'domain' : 'address',
  }));
}

/**
 * Take a sender off the periodic check's index at `position`; left alone when a newer verification
 * mail has listed it again since (its position changed) or it is gone.
 */
export async function unlistPendingSender(accountId: number, id: number, position: string): Promise<void> {
  await updateIf(senderKey(accountId, id), {
    expression: 'REMOVE gsi1pk, #position',
    condition: '#position = :position',
    names: { '#position': 'gsi1sk' },
    values: { ':position': position },
  });
}
