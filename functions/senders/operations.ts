// Sender operations: list, save, details, update, delete and resend of the verification mail.
import { addSender, deleteSender, getSender, listSendersPage, updateSender } from '../../shared/senders/repository';
import { HttpError } from '../../shared/http/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok, okInErrors } from '../../shared/http/reply';
import { validate } from '../../shared/validation';
import { readSenderInput, senderId } from './sender-input';
import { resendIntervalSeconds, sendVerificationMail, sendVerificationMailAfterChange } from './verification';

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('senders', await listSendersPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

export const save = accountOperation(async ({ account, request }) => {
  const input = await readSenderInput(request.fields, false);
  const sender = await addSender(account.id, input);
  await sendVerificationMailAfterChange(account.id, sender.id, request.requestId);
  return ok('Added Successfully');
});

export const details = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { sender_id: senderId });
  return ok({ sender: await getSender(account.id, input.sender_id) });
});

export const update = accountOperation(async ({ account, request }) => {
  const { sender_id: id, ...input } = await readSenderInput(request.fields, true);
  const { addressChanged } = await updateSender(account.id, id, input);
  // A new address is unverified until its owner confirms it, so it gets its own mail at once.
  if (addressChanged) await sendVerificationMailAfterChange(account.id, id, request.requestId);
  return ok('Updated Successfully');
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { sender_id: senderId });
  await deleteSender(account.id, input.sender_id);
  return okInErrors('Deleted Successfully');
});

export const resendMail = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { sender_id: senderId });
  const result = await sendVerificationMail(account.id, input.sender_id, resendIntervalSeconds);
  if (!result.sent) {
    throw new HttpError(422, 'Please wait before requesting another verification mail.', { 'retry-after': String(result.retryAfterSeconds) });
  }
  return ok('Verification Mail Send');
});
