// SES configuration-set events (delivery, bounce, complaint, click) through SNS or EventBridge: statistics and suppressions.
import { eventHandler } from '../../shared/event-entry';
import { handleSesFeedback } from '../../shared/feedback/ses-feedback';

export const handler = eventHandler(handleSesFeedback);
