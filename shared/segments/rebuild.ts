// Rebuilding one segment's rule-derived membership after its rules were saved: one pass over its
// contact type's contacts, writing only the recipients that change.
import { forEachContactOfType } from '../contacts/repository';
import { applyMembershipChanges, SegmentChanged, type MembershipChange } from './recipient-changes';
import type { SegmentJoin } from './membership';
import { isMatchedBy, recipientEntryOf } from './membership';
import { matchedContactsOfSegment } from './recipients';
import type { SegmentRules } from './repository';

/**
 * Make the segment's matched recipients exactly the matching contacts of its type. Manual entries
 * and exclusions are kept. When the segment changes again meanwhile, this pass stops: the newer
 * save's rebuild owns the membership then.
 */
export async function rebuildSegmentMembership(
  accountId: number,
  segment: SegmentRules,
  onJoined: (join: SegmentJoin) => Promise<void>,
): Promise<void> {
  // Contacts in the segment now: each is either seen again below, or has left the type.
  const previous = await matchedContactsOfSegment(accountId, segment.id);
  try {
    await forEachContactOfType(accountId, segment.contact_type_id, async (contacts) => {
      const changes: MembershipChange[] = [];
      for (const contact of contacts) {
        const matches = isMatchedBy(segment, contact);
        const address = previous.get(contact.id);
        previous.delete(contact.id);
        if (address !== undefined && !(matches && address.toLowerCase() === contact.email.toLowerCase())) {
          changes.push({ kind: 'contact-out', email: address, contactId: contact.id });
        }
        if (matches) changes.push(recipientEntryOf(contact));
      }
      const { joined } = await applyMembershipChanges(accountId, segment.id, changes, segment.rules_version);
      if (joined.length > 0) await onJoined({ segmentId: segment.id, joined });
    });
    const departed = [...previous].map(([contactId, email]): MembershipChange => ({ kind: 'contact-out', email, contactId }));
    await applyMembershipChanges(accountId, segment.id, departed, segment.rules_version);
  } catch (error) {
    if (!(error instanceof SegmentChanged)) throw error;
  }
}

