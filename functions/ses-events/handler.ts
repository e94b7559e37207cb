// The ses-events queue's consumer (SQS, partial batch failures): SES configuration-set events, put
// on the queue by an EventBridge rule, turned into statistics and suppressions a batch at a time.
import { eventHandler } from '../../shared/event-entry';
import { handleSesEvents } from '../../shared/feedback/ses-event-batch';

export const handler = eventHandler(handleSesEvents);
