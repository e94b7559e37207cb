// Rebuilding one segment's rule-derived membership after its rules were saved, as a background job:
// one pass over its contact type's contacts adds those that match, then one pass over its recipients
// takes out the contacts that no longer match (or left the type). Both passes resume from a cursor.
import { contactsOfTypePage, getContacts } from '../contacts/repository';
import type { JobOutcome, JobRun } from '../background-jobs/job-queue';
import { applyMembershipChanges, SegmentChanged, type MembershipChange } from '../segments/recipient-changes';
import type { SegmentJoin } from '../segments/membership';
import { EngagementLookup, isMatchedBy, recipientEntryOf } from '../segments/membership';
import { withExclusionsAmong, withExclusionsOf } from '../segments/exclusions';
import { segmentRecipientsAfter } from '../segments/recipients';
import { getSegmentRules, markSegmentBuilt, type SegmentRules } from '../segments/repository';

/** Contacts (and then recipients) read per page: one checkpoint each. */
export const rebuildPageSize = 500;

const superseded: JobOutcome = { status: 'superseded', message: 'The segment was changed or deleted; the newer save rebuilds it.' };

/** Add the matching contacts of one page after contact `after`; answers the last contact id read, or null at the end. */
async function addMatchingContacts(accountId: number, segment: SegmentRules, after: number | null, onJoined: (join: SegmentJoin) => Promise<void>) {
  const contacts = await contactsOfTypePage(accountId, segment.contact_type_id, after, rebuildPageSize);
  const rules = await withExclusionsOf(accountId, segment, contacts.map((contact) => contact.id));
  const engagement = await EngagementLookup.of(accountId, segment, contacts.map((contact) => contact.email));
  const changes = contacts.filter((contact) => isMatchedBy(rules, contact, engagement)).map(recipientEntryOf);
  const { joined } = await applyMembershipChanges(accountId, segment.id, changes, segment.rules_version);
  if (joined.length > 0) await onJoined({ segmentId: segment.id, joined });
  return { read: contacts.length, last: contacts.length < rebuildPageSize ? null : (contacts.at(-1)?.id ?? null) };
}

/** Take out the recipients of one page after key `after` whose contact no longer matches; answers the last key read, or null at the end. */
async function removeDeparted(accountId: number, segment: SegmentRules, after: string | null) {
  const page = await segmentRecipientsAfter(accountId, segment.id, after, rebuildPageSize);
  const held = page.recipients.filter((recipient) => recipient.contact_id !== null);
  const contacts = await getContacts(accountId, held.map((recipient) => Number(recipient.contact_id)));
  const rules = await withExclusionsAmong(accountId, segment, [...contacts.keys()]);
  const engagement = await EngagementLookup.of(accountId, segment, [...contacts.values()].map((contact) => contact.email));
  const changes: MembershipChange[] = held
    .filter((recipient) => {
      const contact = contacts.get(Number(recipient.contact_id));
      return !contact || !isMatchedBy(rules, contact, engagement) || contact.email.trim().toLowerCase() !== recipient.email.trim().toLowerCase();
    })
    .map((recipient) => ({ kind: 'contact-out', email: recipient.email, contactId: Number(recipient.contact_id) }));
  await applyMembershipChanges(accountId, segment.id, changes, segment.rules_version);
  return { read: page.recipients.length, last: page.recipients.length < rebuildPageSize ? null : (page.last ?? null) };
}

/**
 * Make the segment's matched recipients exactly the matching contacts of its type, for the rules
 * version the job was started with. Manual entries and exclusions are kept. When the segment changes
 * again meanwhile, the job ends superseded: the newer save's job owns the membership then. The
 * segment is marked ready (mailable) only when both passes are complete.
 */
export async function runSegmentRebuild(run: JobRun, onJoined: (join: SegmentJoin) => Promise<void>): Promise<JobOutcome> {
  const { accountId, job } = run;
  const segment = await getSegmentRules(accountId, Number(job.target));
  if (!segment || segment.rules_version !== job.version) return superseded;
  let cursor = job.cursor ?? { phase: 'contacts', after: null };
  try {
    while (cursor.phase !== 'done') {
      if (!run.keepGoing()) return { status: 'paused' };
      let next: typeof cursor;
      let read: number;
      if (cursor.phase === 'contacts') {
        const page = await addMatchingContacts(accountId, segment, cursor.after === null ? null : Number(cursor.after), onJoined);
        read = page.read;
        next = page.last === null ? { phase: 'recipients', after: null } : { phase: 'contacts', after: page.last };
      } else {
        const page = await removeDeparted(accountId, segment, cursor.after === null ? null : String(cursor.after));
        read = page.read;
        next = page.last === null ? { phase: 'done', after: null } : { phase: 'recipients', after: page.last };
      }
      const doing = next.phase === 'contacts' ? 'Adding the matching contacts.' : 'Removing the contacts that no longer match.';
      if (!(await run.checkpoint(cursor.phase === 'contacts' ? read : 0, next, doing))) return superseded;
      cursor = next;
    }
  } catch (error) {
    if (error instanceof SegmentChanged) return superseded;
    throw error;
  }
  if (!(await markSegmentBuilt(accountId, segment.id, segment.rules_version))) return superseded;
  return { status: 'completed', message: 'The segment is ready.' };
}
