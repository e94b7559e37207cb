// Engagement segments kept current as people engage: a person's first open or click of a mail notes
// the address's engagement (ledger/engagement.ts) and moves its contacts in or out of the account's
// segments whose engagement conditions it touches, enrolling those that joined in their live
// automations. An account without engagement segments pays one small write per first open or click
// and one Query that finds nothing.
import { onSegmentsJoined } from '../automation-runs/enrolment-service';
import { contactsOfTypeAt } from '../contacts/repository';
import { noteEngagement } from '../ledger/engagement';
import type { EngagementKind } from '../ledger/keys';
import type { SendRef } from '../ledger/send-ref';
import { listEngagementSegments, type EngagementSegment, type IndexedCondition } from '../segments/engagement-index';
import { namesSingleSend } from '../segments/engagement-rules';
import { resyncSegmentContacts, type SegmentJoin } from '../segments/membership';
import { getSegmentRules } from '../segments/repository';

/** Whether an event of this kind on this mail can change what a condition says. */
function touches(condition: IndexedCondition, ref: SendRef, kind: EngagementKind): boolean {
  // A click counts as an open; an open says nothing of clicks.
  if (condition.field === 'email_clicked' && kind !== 'click') return false;
  if (!namesSingleSend(condition.operator)) return true;
  return ref.kind === 'single-send' && condition.value === ref.utr;
}

/** Judge the contacts at these addresses against each segment again; those that joined enrol in its live automations. */
export async function resyncAddresses(accountId: number, segments: readonly EngagementSegment[], addresses: readonly string[]): Promise<void> {
  const joins: SegmentJoin[] = [];
  for (const indexed of segments) {
    const segment = await getSegmentRules(accountId, indexed.segmentId);
    if (!segment) continue;
    const contacts = await contactsOfTypeAt(accountId, segment.contact_type_id, addresses);
    if (contacts.length === 0) continue;
    const join = await resyncSegmentContacts(accountId, segment, contacts);
    if (join && join.joined.length > 0) joins.push(join);
  }
  await onSegmentsJoined(accountId, joins);
}

/**
 * A person's first open (or click) of one mail: note the address's engagement, then move its contacts
 * in the segments this can change. Call it only for the first (the statistics marker was claimed).
 */
export async function onFirstEngagement(ref: SendRef, email: string, kind: EngagementKind): Promise<void> {
  const [, segments] = await Promise.all([noteEngagement(ref.accountId, email, kind), listEngagementSegments(ref.accountId)]);
  const touched = segments.filter((segment) => segment.conditions.some((condition) => touches(condition, ref, kind)));
  if (touched.length > 0) await resyncAddresses(ref.accountId, touched, [email]);
}

