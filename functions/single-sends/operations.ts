// Single send operations: list, create, duplicate, details, statistics, update, delete, bulk delete,
// and resume (of a send paused for its bounces or complaints).
import { deleteSingleSend } from '../../shared/single-sends/deletion';
import {
  createSingleSend,
  duplicateSingleSend,
  getSingleSendWithTest,
  listSingleSendsPage,
  newSingleSendUtr,
  SingleSendLocked,
  updateSingleSend,
} from '../../shared/single-sends/repository';
import { deleteSend, deleteSends } from '../../shared/single-send-runs/send-cleanup-service';
import { settleSenderWait, waitForSender } from '../../shared/send-gates/sender-gate-service';
import { getDispatchState } from '../../shared/single-sends/progress';
import { resumeSingleSend } from '../../shared/single-send-runs/reputation-resume';
import { sendProgress, singleSendStats } from '../../shared/statistics/report';
import { abTestReport } from '../../shared/statistics/ab-test-report';
import { withCurrentWaiting } from '../../shared/single-sends/waiting';
import { Conflict, ValidationError } from '../../shared/errors';
import { on } from '../../shared/http/error-registry';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { array, Field, maxBulkIds, string, validate } from '../../shared/validation';
import { cancelDispatch, cancelJob, forgetSenderWait, scheduleDispatch, startDispatch } from './dispatch-schedule';
import { readSingleSendInput } from './input';

export const utr = string().required().max(64);

/** A bulk-delete entry: a send's integer id (as the spec's `strIds` name records elsewhere) or its utr. */
function idOrUtr(): Field<number | string, number | string> {
  return new Field<number | string>((value) => {
    if (typeof value === 'number' && Number.isSafeInteger(value) && value > 0) return { ok: true, value };
    if (typeof value !== 'string') return { ok: false, key: 'string' };
    const text = value.trim();
    if (/^\d{1,15}$/.test(text) && Number(text) > 0) return { ok: true, value: Number(text) };
    return { ok: true, value: text };
  }).required();
}

const cancelConcurrency = 10;

export const strIds = array(idOrUtr()).required().min(1).max(maxBulkIds);

export const list = accountOperation(async ({ account, request }) => {
  const page = await listSingleSendsPage(account.id, pageOf(validate(request.query, pageQuery())));
  return ok(withNextCursor('singleSends', { ...page, items: await Promise.all(page.items.map(withCurrentWaiting)) }));
});

export const create = accountOperation(async ({ account, request }) => {
  const input = await readSingleSendInput(account.id, request.fields);
  const utr = newSingleSendUtr();
  // An unverified sender: the send is listed for it, then saved as a waiting draft with no job.
  const waiting = await waitForSender(account.id, input.sender, utr);
  const singleSend = await createSingleSend(account.id, input.content, input.dispatchAt, { utr, waiting });
  if (waiting) {
    await settleSenderWait(account.id, input.sender.id, utr);
    return ok({ utr });
  }
  try {
    await startDispatch(singleSend, input.dispatchAt);
  } catch (error) {
    // A send that can never fire must not be left looking ready.
    await deleteSingleSend(account.id, singleSend.utr);
    throw error;
  }
  return ok({ utr: singleSend.utr });
});

export const duplicate = accountOperation(async ({ account, request }) => {
  // Accepted by GET (as documented) and POST (as the spec's example sends it); the utr is in the query.
  const input = validate({ ...request.fields, ...request.query }, { utr });
  await duplicateSingleSend(account.id, input.utr);
  return ok('Duplicated Successfully');
});

export const details = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { utr });
  const [{ singleSend, abTest, shards }, progress] = await Promise.all([getSingleSendWithTest(account.id, input.utr), getDispatchState(account.id, input.utr)]);
  // Added to the spec's record: recipients whose outcome is unknown (0 before sending), once the send
  // has started "processed of audience", a resend's original (null for any other send) and a send's
  // A/B test (docs/api-notes.md).
  const shown = await withCurrentWaiting(singleSend);
  return ok({
    singleSend: [
      {
        ...shown,
        resend_of: shown.resend_of ?? null,
        uncertain: progress?.uncertain ?? 0,
        ...(progress ? sendProgress(progress) : {}),
        ...(abTest ? { ab_test: abTestReport(abTest, shards, progress) } : {}),
      },
    ],
  });
});

export const stats = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { utr });
  return ok(await singleSendStats(account.id, input.utr));
});

export const update = accountOperation(async ({ account, request }) => {
  const utrField = utr.parse(request.fields.utr, 'utr');
  const input = await readSingleSendInput(account.id, request.fields, utrField.ok ? {} : { utr: [utrField.message] });
  if (!utrField.ok) throw new ValidationError({ utr: [utrField.message] });
  const waiting = await waitForSender(account.id, input.sender, utrField.value);
  const singleSend = await updateSingleSend(account.id, utrField.value, input.content, input.dispatchAt, { waiting });
  if (waiting) {
    // Its job, if it was ready, must not fire: the sender's confirmation books a new one.
    await cancelJob(singleSend);
    await settleSenderWait(account.id, input.sender.id, singleSend.utr);
  } else {
    await scheduleDispatch(singleSend, input.dispatchAt);
  }
  return ok({ utr: singleSend.utr });
}, { errors: [on(SingleSendLocked, () => new Conflict('A single send that is running or completed cannot be updated.'))] });

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { utr });
  // A mailed send's link items are purged by a job started with the delete (send-cleanup-service.ts).
  const deleted = await deleteSend(account.id, input.utr);
  await cancelDispatch(deleted);
  await forgetSenderWait(deleted);
  return ok('Deleted Successfully');
});

export const bulkDelete = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { strIds });
  const deleted = await deleteSends(account.id, input.strIds);
  // In groups, so a long list stays inside the scheduler API's request rate.
  for (let start = 0; start < deleted.length; start += cancelConcurrency) {
    await Promise.all(deleted.slice(start, start + cancelConcurrency).map(async (singleSend) => {
      await cancelDispatch(singleSend);
      await forgetSenderWait(singleSend);
    }));
  }
  return ok('Deleted Successfully');
});

/** The answer to resuming a send that is not paused for its reputation. */
export const notPausedText = 'The single send is not paused; only a running send paused for its bounces or complaints can be resumed.';

export const resume = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { utr });
  if ((await resumeSingleSend(account.id, input.utr)) === 'not-paused') throw ValidationError.of('utr', notPausedText);
  return ok('Single send resumed; it continues with the recipients not yet mailed.');
});
