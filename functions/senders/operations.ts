// Sender operations: list, save, details, update, delete and resend of the verification mail.
import { addSender, deleteSender, getSender, listSendersPage, secondsUntilNextMail, updateSender, type SenderInput } from '../../shared/senders/repository';
import { RateLimited } from '../../shared/errors';
import { claimSystemMail } from '../../shared/system-mail/budget';
import { log } from '../../shared/log';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok, okInErrors } from '../../shared/http/reply';
import { validate } from '../../shared/validation';
import { readSenderInput, senderId } from './sender-input';
import { alignmentOf, onVerifiedDomainOf } from '../../shared/identities/alignment';
import { verifySender } from '../../shared/sender-verification/confirmation-service';
import { refreshSenderVerification, releaseAddressIfUnused } from '../../shared/sender-verification/address-service';
import { claimVerificationBudget, resendIntervalSeconds, resendTooSoonMessage, sendVerificationMail, sendVerificationMailAfterChange, withVerificationBudget } from './verification';

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('senders', await listSendersPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

// Past the account's verification budget a save is refused before anything is stored: a 429 then
// means "nothing happened, try again later", and the retry cannot leave a duplicate sender behind.
export const save = accountOperation(async ({ account, request }) => {
  const input = await readSenderInput(request.fields, false);
  if (await onVerifiedDomainOf(account.id, input.from_email)) {
    // SES may already send from any address of the account's verified domain: nothing to confirm.
    const sender = await addSender(account.id, input);
    await verifySender(account.id, sender.id, sender.from_email, 'domain');
    return ok('Added Successfully');
  }
  const { result: sender, budget } = await withVerificationBudget(account.id, () => addSender(account.id, input), () => true);
  if (budget) await sendVerificationMailAfterChange(account.id, sender.id, budget, request.requestId);
  return ok('Added Successfully');
});

// Details asks the identity port about an unverified sender (deployed: SES), so `is_verified` turns
// to 1 as soon as the owner has clicked SES's link. The list shows what is stored: it never calls SES
// per sender; the periodic check (functions/identity-refresh) and details keep it current.
export const details = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { sender_id: senderId });
  const before = await getSender(account.id, input.sender_id);
  const sender = before.is_verified === 0 && (await refreshSenderVerification(account.id, before.id)) ? await getSender(account.id, before.id) : before;
  return ok({ sender: { ...sender, ...(await alignmentOf(account.id, sender.from_email)) } });
});

/**
 * Update a sender, holding a budget place when the address changes (a new address is unverified
 * until its owner confirms it, so it gets its own mail at once). Past the budget an address change is
 * refused before anything is stored, like a save; other changes send nothing and need no budget.
 */
async function updateWithBudget(accountId: number, id: number, input: SenderInput, requestId: string): Promise<void> {
  const before = await getSender(accountId, id);
  if (before.from_email !== input.from_email && (await onVerifiedDomainOf(accountId, input.from_email))) {
    // Moved onto a verified domain: verified at once, and the sends waiting for it are released.
    await updateSender(accountId, id, input);
    await verifySender(accountId, id, input.from_email, 'domain');
    await releaseAddressIfUnused(accountId, before.from_email);
    return;
  }
  if (before.from_email !== input.from_email) {
    const { budget } = await withVerificationBudget(accountId, () => updateSender(accountId, id, input), (result) => result.addressChanged);
    if (budget) await sendVerificationMailAfterChange(accountId, id, budget, requestId);
    await releaseAddressIfUnused(accountId, before.from_email);
    return;
  }
  const { addressChanged } = await updateSender(accountId, id, input);
  if (!addressChanged) return;
  // Another request changed the address between the read and the write: the change is stored, so the
  // mail follows if the budget allows and otherwise waits for a resend.
  const check = await claimSystemMail(accountId, 'verification');
  if (check.allowed) await sendVerificationMailAfterChange(accountId, id, check.claim, requestId);
  else log.info('sender verification mail over budget', { requestId, accountId, senderId: id });
}

export const update = accountOperation(async ({ account, request }) => {
  const { sender_id: id, ...input } = await readSenderInput(request.fields, true);
  await updateWithBudget(account.id, id, input, request.requestId);
  return ok('Updated Successfully');
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { sender_id: senderId });
  const sender = await getSender(account.id, input.sender_id);
  await deleteSender(account.id, input.sender_id);
  // The address's SES identity goes with the account's last sender of it.
  await releaseAddressIfUnused(account.id, sender.from_email);
  return okInErrors('Deleted Successfully');
});

export const resendMail = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { sender_id: senderId });
  // Reads first, so an unknown sender (404) or a resend too soon (429) is refused without a write;
  // the conditional claims below still decide between concurrent resends.
  const wait = secondsUntilNextMail(await getSender(account.id, input.sender_id), resendIntervalSeconds);
  if (wait > 0) throw new RateLimited(resendTooSoonMessage, wait);
  const budget = await claimVerificationBudget(account.id);
  await sendVerificationMail(account.id, input.sender_id, budget, resendIntervalSeconds);
  return ok('Verification Mail Send');
});
