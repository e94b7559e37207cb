// Deleted contacts leaving their segments, written in the same transaction as each contact's own
// delete: a contact is never gone while still listed as a segment recipient, and never listed as
// gone while still a contact. Only the recipient items that hold the contact are written.
import { isoTimestamp } from '../time';
import { batchGetAll } from '../table/batch';
import { transactionLimit, type Companions } from '../table/bulk-delete';
import type { TransactionAction } from '../table/transactions';
import type { Item } from '../table/records';
import type { ContactRecord } from '../contacts/record';
import { countAttribute } from './counts';
import { segmentCountKey, segmentRecipientKey, segmentRecipientShards } from './keys';
import { applyMembershipChanges } from './recipient-changes';
import { recipientState } from './recipients';
import { listSegmentRulesOfContactType } from './repository';

/** A contact's delete, its email claim and its type's count: the actions a contact needs besides its segments. */
const ownActions = 3;

function addressOf(email: string): string {
  return email.trim().toLowerCase();
}

function versionCondition(item: Item) {
  return { ConditionExpression: '#version = :version', ExpressionAttributeNames: { '#version': 'version' }, ExpressionAttributeValues: { ':version': item.version } };
}

/** The write that takes the contact out of one recipient item: the item goes, or keeps only its manual entry. */
function departureOf(item: Item): { write: TransactionAction; leaves: boolean } {
  const state = recipientState(item);
  if (state?.manual) {
    const { contact: _contact, ...kept } = item;
    const rewritten = { ...kept, updated_at: isoTimestamp(), version: Number(item.version ?? 0) + 1 };
    return { write: { Put: { Item: rewritten, ...versionCondition(item) } }, leaves: false };
  }
  return { write: { Delete: { Key: { pk: item.pk, sk: item.sk }, ...versionCondition(item) } }, leaves: true };
}

/**
 * For each contact (in the order given), the writes that take it out of every segment of its type
 * that lists it, with the segments' counts. Read strongly consistently; each write is conditioned on
 * the recipient item's version, so a membership changed meanwhile cancels the delete and is read again.
 * A contact listed in so many segments that its delete would not fit one transaction leaves them
 * first, in transactions of their own (it then stays a contact, out of its segments, until deleted).
 */
export async function segmentDepartures(accountId: number, contacts: readonly ContactRecord[]): Promise<Companions[]> {
  const departures = contacts.map((): Required<Companions> => ({ writes: [], counters: [] }));
  const segmentsLeft = contacts.map((): number[] => []);
  for (const contactTypeId of new Set(contacts.map((contact) => contact.contact_type_id))) {
    const ofType = contacts.flatMap((contact, index) => (contact.contact_type_id === contactTypeId ? [{ contact, index }] : []));
    for (const segment of await listSegmentRulesOfContactType(accountId, contactTypeId)) {
      const keys = [...new Set(ofType.map(({ contact }) => addressOf(contact.email)))].map((address) => segmentRecipientKey(accountId, segment.id, address));
      const items = new Map((await batchGetAll(keys, { consistentRead: true })).map((item) => [String(item.sk), item]));
      for (const { contact, index } of ofType) {
        const item = items.get(addressOf(contact.email));
        if (!item || recipientState(item)?.contact?.contact_id !== contact.id) continue;
        const { write, leaves } = departureOf(item);
        const departure = departures[index] as Required<Companions>;
        departure.writes.push(write);
        // The counter by contact id, so one bulk delete spreads over all 16.
        if (leaves) departure.counters.push({ key: segmentCountKey(accountId, segment.id, contact.id % segmentRecipientShards), attribute: countAttribute, delta: -1, createMissing: true });
        segmentsLeft[index]?.push(segment.id);
      }
    }
  }
  for (const [index, departure] of departures.entries()) {
    if (ownActions + departure.writes.length + departure.counters.length <= transactionLimit) continue;
    const contact = contacts[index] as ContactRecord;
    for (const segmentId of segmentsLeft[index] ?? []) {
      await applyMembershipChanges(accountId, segmentId, [{ kind: 'contact-out', email: contact.email, contactId: contact.id }]);
    }
    departures[index] = { writes: [], counters: [] };
  }
  return departures;
}
