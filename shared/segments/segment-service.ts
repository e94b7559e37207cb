// Saving a segment's rules: rebuild its membership, and enrol the contacts that started to match in
// the segment's live automations, page by page.
import { onSegmentsJoined } from '../automations/enrolment-service';
import { rebuildSegmentMembership } from './rebuild';
import type { SegmentRules } from './repository';

export function rebuildSegment(accountId: number, segment: SegmentRules): Promise<void> {
  return rebuildSegmentMembership(accountId, segment, (join) => onSegmentsJoined(accountId, [join]));
}
