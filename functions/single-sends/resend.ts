// `single/send/resend`: a new single send with a completed send's design, sender, unsubscribe group and
// preheader, whose recipients are, at its own dispatch, the original's recipients who have not opened
// (or clicked) it by then (shared/single-send-runs/recipients.ts).
import { RecordNotFound } from '../../shared/table/errors';
import { currentSender } from '../../shared/senders/repository';
import { senderDetails } from '../../shared/single-sends/sender';
import { createSingleSend, getSingleSend, newSingleSendUtr, resendAudiences, singleSendStatus, type SingleSend, type SingleSendContent } from '../../shared/single-sends/repository';
import { deleteSingleSend } from '../../shared/single-sends/deletion';
import { settleSenderWait, waitForSender } from '../../shared/send-gates/sender-gate-service';
import { ValidationError, type FieldErrors } from '../../shared/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { string, type Infer } from '../../shared/validation';
import { startDispatch } from './dispatch-schedule';
import { readSchedule, schema as sendSchema } from './input';

/** The answer when the utr names a send of the account that has not completed (status 3). */
export const notCompletedMessage = 'The utr field must name a completed single send.';

export const resendSchema = {
  utr: string().required().max(64),
  audience: string().required().in(resendAudiences),
  subject: string().max(255),
  single_send_name: string().max(255),
  schedule_type: sendSchema.schedule_type,
  schedule_date: sendSchema.schedule_date,
  schedule_time: sendSchema.schedule_time,
  schedule_timezone: sendSchema.schedule_timezone,
};

type Values = Partial<Infer<typeof resendSchema>>;

/** The account's send `utr`, or undefined when it has none by that utr (any text that is no utr included). */
async function originalOf(accountId: number, utr: string): Promise<SingleSend | undefined> {
  try {
    return await getSingleSend(accountId, utr);
  } catch (error) {
    if (error instanceof RecordNotFound) return undefined;
    throw error;
  }
}

export const resend = accountOperation(async ({ account, request }) => {
  const errors: FieldErrors = {};
  const values: Values = {};
  for (const [name, field] of Object.entries(resendSchema)) {
    const parsed = field.parse(request.fields[name], name);
    if (parsed.ok) Object.assign(values, { [name]: parsed.value });
    else errors[name] = [parsed.message];
  }
  const original = values.utr === undefined ? undefined : await originalOf(account.id, values.utr);
  if (original && original.status !== singleSendStatus.completed) errors.utr = [notCompletedMessage];
  const { schedule, zone } = readSchedule(values, errors);
  // Every field's own error first, as single/send/update answers them before it looks the send up.
  if (Object.keys(errors).length > 0) throw new ValidationError(errors);
  if (!original) throw new RecordNotFound('single-send', values.utr ?? '');
  if (!schedule?.ok || values.audience === undefined) throw new ValidationError(errors);

  // The sender as it is now (a deleted one: the copied details stay, and the dispatcher holds the send).
  const sender = await currentSender(account.id, original.sender_id);
  const content: SingleSendContent = {
    template_id: original.template_id,
    sender_id: original.sender_id,
    unsubscribe_group_id: original.unsubscribe_group_id,
    recipient_id: [],
    exclude_specific_recipient_id: [],
    single_send_name: values.single_send_name ?? `${original.single_send_name} (resend)`,
    subject: values.subject ?? original.subject,
    preheader: original.preheader,
    from_sender: original.from_sender,
    reply_to: original.reply_to,
    sender_name: original.sender_name,
    sender_address: original.sender_address,
    ...(sender ? await senderDetails(sender) : {}),
    schedule_type: values.schedule_type as 0 | 1,
    schedule_date: schedule.schedule_date,
    schedule_time: schedule.schedule_time,
    schedule_timezone: zone,
    template_json: original.template_json,
    template_html: original.template_html,
  };
  const utr = newSingleSendUtr();
  const waiting = sender ? await waitForSender(account.id, sender, utr) : undefined;
  const singleSend = await createSingleSend(account.id, content, schedule.dispatchAt, { utr, waiting, resendOf: { utr: original.utr, audience: values.audience as (typeof resendAudiences)[number] } });
  if (waiting && sender) {
    await settleSenderWait(account.id, sender.id, utr);
    return ok({ utr });
  }
  try {
    await startDispatch(singleSend, schedule.dispatchAt);
  } catch (error) {
    await deleteSingleSend(account.id, singleSend.utr);
    throw error;
  }
  return ok({ utr: singleSend.utr });
});
