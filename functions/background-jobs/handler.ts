// The `jobs` queue's consumer (SQS, partial batch failures): runs background jobs from their cursors.
import type { Context, SQSEvent } from 'aws-lambda';
import { runContactTypeDeleteJob } from '../../shared/audience/contact-type-service';
import { runContactUpsertJob } from '../../shared/audience/contact-upsert';
import { runAutomationEnrolJob } from '../../shared/automation-runs/going-live';
import { eventHandler } from '../../shared/event-entry';
import { handleJobEvent, type JobRunner } from '../../shared/background-jobs/job-queue';
import type { JobKind } from '../../shared/jobs/repository';
import { runSegmentPurgeJob, runSegmentRebuildJob } from '../../shared/audience/segment-service';
import { runWindowSlideJob } from '../../shared/audience/engagement-slide-job';
import { runSuppressionStateBackfillJob } from '../../shared/background-jobs/suppression-state-backfill';
import { runLinkPurgeJob } from '../../shared/single-send-runs/send-cleanup-service';

/** What runs each kind of job. */
export const jobRunners: Readonly<Record<JobKind, JobRunner>> = {
  'contact-type-delete': runContactTypeDeleteJob,
  'segment-rebuild': runSegmentRebuildJob,
  'segment-purge': runSegmentPurgeJob,
  'automation-enrol': runAutomationEnrolJob,
  'single-send-link-purge': runLinkPurgeJob,
  'contact-upsert': runContactUpsertJob,
  'segment-window-slide': runWindowSlideJob,
  'suppression-state-backfill': runSuppressionStateBackfillJob,
};

export const handler = eventHandler((event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>) => handleJobEvent(event, context, jobRunners));
