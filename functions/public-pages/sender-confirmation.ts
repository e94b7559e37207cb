// The page a sender's verification mail links to: a valid link marks the sender verified.
import { readSenderConfirmation } from '../../shared/senders/confirmation';
import { RecordNotFound } from '../../shared/table/errors';
import { confirmSenderAddress } from '../../shared/senders/repository';
import { publicOperation } from '../../shared/http/pipeline';
import { log } from '../../shared/log';
import { htmlPage } from './page';

// One text for every refused link, so the page tells nothing about why or about whose link it was.
const invalidLink = () =>
  htmlPage(400, {
    title: 'This link is invalid or has expired',
    paragraphs: ['The confirmation link is invalid or has expired. Ask for a new verification mail and use the link in it.'],
  });

const senderGone = () =>
  htmlPage(404, {
    title: 'Sender not found',
    paragraphs: ['This sender no longer exists, so there is nothing to confirm.'],
  });

export const confirmSender = publicOperation(async ({ request }) => {
  const check = readSenderConfirmation(request.query.token);
  if (!check.valid) {
    log.info('sender confirmation refused', { requestId: request.requestId, reason: check.reason });
    return invalidLink();
  }
  const { accountId, senderId, email } = check.claims;
  try {
    const outcome = await confirmSenderAddress(accountId, senderId, email);
    if (outcome === 'address-changed') {
      log.info('sender confirmation refused', { requestId: request.requestId, reason: 'address-changed' });
      return invalidLink();
    }
  } catch (error) {
    if (error instanceof RecordNotFound) return senderGone();
    throw error;
  }
  // A second click lands here too (already verified): confirming is idempotent.
  return htmlPage(200, {
    title: 'Sender address confirmed',
    paragraphs: [`Thank you. The address ${email} is confirmed and can now be used to send email.`],
  });
});
