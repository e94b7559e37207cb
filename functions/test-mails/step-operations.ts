// An automation step's test mail: the step's mail to the tester's addresses, with a contact's values
// or samples (shared/test-sends/test-send.ts). `schedule_id` is the step's utr, as the schedule list and
// `automations/schedule/delete` name it; an unknown one answers `Record not found`.
import { accountOperation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { automationStepSubject, sendTestMails } from '../../shared/test-sends/test-send';
import { testAddressesField, testContactField, testSendTargets } from '../../shared/test-sends/test-send-input';
import { string, validate } from '../../shared/validation';
import { testSendRefusals } from './refusals';

/** What `POST automations/schedule/test` reads from its body. */
export const stepTestFields = { schedule_id: string().required().max(64), emails: testAddressesField, contact_id: testContactField };

export const testSchedule = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, stepTestFields);
  const subject = await automationStepSubject(account.id, input.schedule_id);
  const { persona, addresses } = await testSendTargets(account.id, input.contact_id, input.emails);
  await sendTestMails(subject, persona, addresses);
  return ok('Test Mail Sent');
}, { errors: testSendRefusals('automation schedule') });
