// Lambda for the test-mails family: test sends and previews of single sends and automation steps.
// A family of its own because it composes and sends mail (the delivery path and the SES client): in
// the single-sends or automations Lambda that would push their bundles past the size budget.
import { httpHandler } from '../../shared/http/pipeline';
import { preview, sendTest } from './single-send-operations';
import { testSchedule } from './step-operations';

export const handler = httpHandler('test-mails', { singleSendTest: sendTest, singleSendPreview: preview, stepTest: testSchedule });
