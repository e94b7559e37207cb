// The `imports` queue's consumer (SQS, partial batch failures): runs contact CSV import jobs in chunks.
import { handleImportEvent } from '../../shared/audience/import-queue';
import { eventHandler } from '../../shared/event-entry';

export const handler = eventHandler(handleImportEvent);
