// A completed single send and the segments that name it with `not in single send`: each is rebuilt
// once, so the recipients the send mailed join them then, not mail by mail (sending pays nothing for them).
import { startJob } from '../background-jobs/job-queue';
import { listEngagementSegments } from '../segments/engagement-index';
import { getSegmentRules } from '../segments/repository';

const rebuildMessage = 'Waiting to work out the segment\u2019s recipients.';

/** A single send completed: rebuild the segments that name it with `not in single send`. */
export async function onSingleSendCompleted(accountId: number, utr: string): Promise<void> {
  const naming = (await listEngagementSegments(accountId)).filter((segment) =>
    segment.conditions.some((condition) => condition.operator === 'not in single send' && condition.value === utr),
  );
  for (const indexed of naming) {
    const segment = await getSegmentRules(accountId, indexed.segmentId);
    if (segment) await startJob(accountId, { kind: 'segment-rebuild', target: segment.id, version: segment.rules_version, message: rebuildMessage });
  }
}

