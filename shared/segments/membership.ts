// Keeps segment membership current as contacts change: the contacts repository calls in here after
// every contact write, and only the segments of the contacts' types are read and evaluated.
import { contactMatches, type EngagementView } from './rules';
import type { ContactRecord } from '../contacts/record';
import { currentTime } from '../time';
import { dayOf, noEngagement, type EngagementFacts } from './engagement-rules';
import { engagementFactsOf, readsEngagement } from './engagement-facts';
import { applyMembershipChanges, SegmentChanged, type MembershipChange, type SegmentJoiner } from './recipient-changes';

/** The contacts that started to match one segment. */
export interface SegmentJoin {
  segmentId: number;
  joined: SegmentJoiner[];
}
import { withExclusionsOf } from './exclusions';
import { contactEntry } from './recipients';
import { getSegmentRules, listSegmentRulesOfContactType, type SegmentRules } from './repository';

export { forEachSegmentRecipient, type SegmentRecipient } from './recipients';

/** One contact change: `before` absent for a create, `after` absent for a delete. */
export interface ContactChange {
  before?: ContactRecord;
  after?: ContactRecord;
}

/** How often one segment's sync is redone after its rules changed underneath it, before the rebuild is left to fix it. */
const maxRuleChanges = 5;

function sameAddress(a: string, b: string): boolean {
  return a.trim().toLowerCase() === b.trim().toLowerCase();
}

/**
 * The engagement of the contacts' addresses that a segment's conditions read (none read when it has
 * no engagement condition), and the day they are judged on.
 */
export class EngagementLookup {
  private constructor(
    private readonly facts: ReadonlyMap<string, EngagementFacts>,
    private readonly today: string,
  ) {}

  static none = new EngagementLookup(new Map(), '');

  /** Read the facts of these addresses for the segment's conditions: strongly consistent, so an event's own writes are seen. */
  static async of(accountId: number, segment: Pick<SegmentRules, 'conditions'>, emails: readonly string[]): Promise<EngagementLookup> {
    if (!readsEngagement(segment.conditions)) return EngagementLookup.none;
    const today = dayOf(currentTime());
    return new EngagementLookup(await engagementFactsOf(accountId, emails, segment.conditions, { consistentRead: true }), today);
  }

  viewOf(email: string): EngagementView {
    return { facts: this.facts.get(email.trim().toLowerCase()) ?? noEngagement, today: this.today };
  }
}

/** Whether a contact is in a segment by its rules: of the segment's type, matching, and not excluded by hand. */
export function isMatchedBy(segment: SegmentRules, contact: ContactRecord, engagement: EngagementLookup = EngagementLookup.none): boolean {
  return (
    contact.contact_type_id === segment.contact_type_id &&
    !segment.excluded_contact_ids.has(contact.id) &&
    contactMatches(segment.conditions, contact, segment.query_type, engagement.viewOf(contact.email))
  );
}

/** The recipient entry a matching contact puts in a segment. */
export function recipientEntryOf(contact: ContactRecord): MembershipChange & { kind: 'contact-in' } {
  return {
    kind: 'contact-in',
    // contactEntry keeps only the fields a segment recipient holds.
    entry: contactEntry({ ...contact, contact_id: contact.id }),
  };
}

/**
 * The changes one segment needs for some contact changes. A contact's old address always has its
 * entry taken out unless the contact still matches there, whatever the old record seemed to
 * match: that also repairs an entry written under rules that have changed since.
 */
export function membershipChangesFor(segment: SegmentRules, changes: readonly ContactChange[], engagement: EngagementLookup = EngagementLookup.none): MembershipChange[] {
  const result: MembershipChange[] = [];
  for (const { before, after } of changes) {
    const matchesAfter = after !== undefined && isMatchedBy(segment, after, engagement);
    if (before && before.contact_type_id === segment.contact_type_id && !(matchesAfter && sameAddress(before.email, after.email))) {
      result.push({ kind: 'contact-out', email: before.email, contactId: before.id });
    }
    if (matchesAfter) result.push(recipientEntryOf(after));
  }
  return result;
}

async function syncSegment(accountId: number, segment: SegmentRules, changes: readonly ContactChange[]): Promise<SegmentJoin | undefined> {
  let current: SegmentRules | undefined = segment;
  const entering = changes.flatMap(({ after }) => (after ? [after.id] : []));
  for (let attempt = 0; current && attempt < maxRuleChanges; attempt++) {
    try {
      const rules = await withExclusionsOf(accountId, current, entering);
      const engagement = await EngagementLookup.of(accountId, current, changes.flatMap(({ after }) => (after ? [after.email] : [])));
      const { joined } = await applyMembershipChanges(accountId, current.id, membershipChangesFor(rules, changes, engagement), current.rules_version);
      return { segmentId: current.id, joined };
    } catch (error) {
      if (!(error instanceof SegmentChanged)) throw error;
      // Updated (evaluate again under the new rules) or deleted (nothing left to do).
      current = await getSegmentRules(accountId, current.id);
    }
  }
  return undefined;
}

/**
 * Judge these contacts against one segment again, with nothing about them changed but what its
 * engagement conditions read (an open, a click, a day passing): each joins or leaves accordingly.
 */
export function resyncSegmentContacts(accountId: number, segment: SegmentRules, contacts: readonly ContactRecord[]): Promise<SegmentJoin | undefined> {
  return syncSegment(accountId, segment, contacts.map((contact) => ({ before: contact, after: contact })));
}

/**
 * Bring the segments of the contact's type(s) up to date after one contact was created
 * (`before` undefined), updated (both) or deleted (`after` undefined). Call it after the contact
 * write has succeeded, with the stored records (not the request input). Answers who joined which
 * segment, for the caller to enrol.
 */
export function syncContactSegments(
  accountId: number,
  before: ContactRecord | undefined,
  after: ContactRecord | undefined,
): Promise<SegmentJoin[]> {
  return syncContactSegmentsBatch(accountId, [{ before, after }]);
}

/**
 * The batch form of `syncContactSegments`, for CSV imports and bulk deletes: pass every change of
 * one request (any number, e.g. 10,000 imported rows) in ONE call, after the contacts are stored.
 * It reads the segments of each contact type once (one Query per type), and writes each segment's
 * membership in transactions of up to 99 recipients plus the segment's count, so it costs far
 * fewer requests than calling `syncContactSegments` per row.
 */
export async function syncContactSegmentsBatch(accountId: number, changes: readonly ContactChange[]): Promise<SegmentJoin[]> {
  const joins: SegmentJoin[] = [];
  const contactTypeIds = new Set<number>();
  for (const { before, after } of changes) {
    if (before) contactTypeIds.add(before.contact_type_id);
    if (after) contactTypeIds.add(after.contact_type_id);
  }
  for (const contactTypeId of contactTypeIds) {
    const segments = await listSegmentRulesOfContactType(accountId, contactTypeId);
    for (const segment of segments) {
      const join = await syncSegment(accountId, segment, changes);
      if (join && join.joined.length > 0) joins.push(join);
    }
  }
  return joins;
}
