// The confirmation mails owed to pending contacts: one small item per contact, written in the same
// write that creates the contact pending (or by a resend), removed once its mail went (or the contact
// is confirmed or gone). Sharded by contact id as contacts are, so a large import into a double opt-in type spreads
// its writes. The mailer (shared/audience/opt-in-mailer.ts) claims an item before it mails, so two
// runs never mail one contact at once; a claim a run left behind (it died) is taken again after
// `staleClaimMs`: the mail is owed until it is known to have gone.
import { currentTime, isoTimestamp } from '../time';
import { contactShardOf, contactShards } from './keys';
import type { ContactRecord } from './record';
import { entityPartition, idSortKey, shardPartition, type Key } from '../table/keys';
import { conditionHeld, deleteItem, putItem, queryPageAfter, updateItem, type Item } from '../table/records';
import type { TransactionAction } from '../table/transactions';

export const OPT_IN_MAIL = 'opt-in-mail';

/** How long a claimed mail stays claimed before another run may take it (well past a mail's send). */
export const staleClaimMs = 10 * 60_000;

export interface OwedOptInMail {
  key: Key;
  contactId: number;
  contactTypeId: number;
  /** The claim time of a claimed item; null while it waits. */
  claimedAt: string | null;
}

function outboxShardPartition(accountId: number, shard: number): string {
  return shardPartition(entityPartition(accountId, OPT_IN_MAIL), shard);
}

export function optInMailKey(accountId: number, contactId: number): Key {
  return { pk: outboxShardPartition(accountId, contactShardOf(contactId)), sk: idSortKey(contactId) };
}

/** The item owing a new pending contact its mail. */
export function optInMailItem(contact: ContactRecord): Item & Key {
  return {
    ...optInMailKey(contact.user_id, contact.id),
    entity: OPT_IN_MAIL,
    contact_id: contact.id,
    contact_type_id: contact.contact_type_id,
    queued_at: isoTimestamp(),
  };
}

/** The write, for the transaction that creates a pending contact, that owes it its mail. */
export function optInMailPut(contact: ContactRecord): TransactionAction {
  return { Put: { Item: optInMailItem(contact) } };
}

/**
 * Owe a pending contact its mail again (a resend), unless it is owed one already: that one stays as
 * it is, claimed or waiting. One owed for the type the contact was in before it moved is replaced (the
 * mailer would settle it unsent). Whether the mail became owed by this write.
 */
export function oweOptInMail(contact: ContactRecord): Promise<boolean> {
  return conditionHeld(
    putItem({
      Item: optInMailItem(contact),
      ConditionExpression: 'attribute_not_exists(pk) OR contact_type_id <> :type',
      ExpressionAttributeValues: { ':type': contact.contact_type_id },
    }),
  );
}

function owedOf(item: Item): OwedOptInMail {
  return {
    key: { pk: String(item.pk), sk: String(item.sk) },
    contactId: Number(item.contact_id),
    contactTypeId: Number(item.contact_type_id),
    claimedAt: typeof item.claimed_at === 'string' ? item.claimed_at : null,
  };
}

/** The next `limit` owed mails of one shard after contact `after` (null: from the first). */
export async function owedOptInMailsPage(accountId: number, shard: number, after: number | null, limit: number): Promise<OwedOptInMail[]> {
  const page = await queryPageAfter({ partition: outboxShardPartition(accountId, shard), ...(after === null ? {} : { after: idSortKey(after) }), limit });
  return page.items.map(owedOf);
}

export const optInOutboxShards = contactShards;

/** Claim an owed mail for this run: it waits, or its claim is stale. The claim's time, or undefined when another run holds it. */
export async function claimOptInMail(owed: OwedOptInMail): Promise<string | undefined> {
  const now = currentTime();
  const claimedAt = isoTimestamp(now);
  const claimed = await conditionHeld(
    updateItem({
      Key: owed.key,
      UpdateExpression: 'SET claimed_at = :now',
      ConditionExpression: 'attribute_exists(pk) AND (attribute_not_exists(claimed_at) OR claimed_at < :stale)',
      ExpressionAttributeValues: { ':now': claimedAt, ':stale': isoTimestamp(new Date(now.getTime() - staleClaimMs)) },
    }),
  );
  return claimed ? claimedAt : undefined;
}

/** Give a claimed mail back to wait for the next run (SES refused or throttled it). */
export async function releaseOptInMail(owed: OwedOptInMail, claimedAt: string): Promise<void> {
  await conditionHeld(
    updateItem({
      Key: owed.key,
      UpdateExpression: 'REMOVE claimed_at',
      ConditionExpression: 'claimed_at = :claimed',
      ExpressionAttributeValues: { ':claimed': claimedAt },
    }),
  );
}

/** The mail is owed no more: it went, or the contact is confirmed or gone. */
export async function settleOptInMail(key: Key): Promise<void> {
  await deleteItem({ Key: key });
}
