// A single send's test mail and preview: the mail one person would get, with a contact's values or
// samples (shared/test-sends/test-send.ts). Both answer `Record not found` for an unknown utr.
import { accountOperation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { previewMail, sendTestMails, singleSendSubject } from '../../shared/test-sends/test-send';
import { testAddressesField, testContactField, testPersona, testSendTargets } from '../../shared/test-sends/test-send-input';
import { string, validate } from '../../shared/validation';
import { testSendRefusals } from './refusals';

const utr = string().required().max(64);

/** What `POST single/send/test` reads from its body. */
export const testFields = { utr, emails: testAddressesField, contact_id: testContactField };

/** What `GET single-send/preview` reads from its query. */
export const previewQuery = { utr, contact_id: testContactField };

export const sendTest = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, testFields);
  const subject = await singleSendSubject(account.id, input.utr);
  const { persona, addresses } = await testSendTargets(account.id, input.contact_id, input.emails);
  await sendTestMails(subject, persona, addresses);
  return ok('Test Mail Sent');
}, { errors: testSendRefusals('single send') });

export const preview = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, previewQuery);
  const subject = await singleSendSubject(account.id, input.utr);
  return ok({ preview: previewMail(subject, await testPersona(account.id, input.contact_id)) });
});
