// The confirmation mailer of one account: mails each pending contact owed its confirmation mail
// (shared/contacts/opt-in-outbox.ts) from its type's opt-in sender, through the mail port under the
// account's SES tenant, within the account's hourly budget (opt-in-budget.ts). A mail is owed until
// it is known to have gone: one whose sender is not verified waits for the sender's confirmation
// (which wakes this run again), one past the budget waits for the next hour, one SES refused or
// throttled is tried again at the next run. Nothing owed is ever dropped, only settled: sent, or its
// contact confirmed, deleted or moved to another address.
import { config } from '../config';
import { getContactTypes, type ContactType } from '../contact-types/repository';
import { signOptInConfirmation } from '../contacts/opt-in-link';
import { claimOptInMail, optInOutboxShards, owedOptInMailsPage, releaseOptInMail, settleOptInMail, type OwedOptInMail } from '../contacts/opt-in-outbox';
import type { ContactRecord } from '../contacts/record';
import { getContacts } from '../contacts/repository';
import { describeError, log } from '../log';
import { MailSendingPausedError, MailThrottledError, sendMail, type OutgoingMail } from '../mail/mailer';
import { escapeHtml } from '../mail/templates/html';
import { currentSender, type Sender } from '../senders/repository';
import { sendingSettings } from '../delivery/settings';
import { withAccountTenant } from '../tenants/sending-tenant';
import { currentTime } from '../time';
import { claimOptInPlace, releaseOptInPlace } from './opt-in-budget';
import { endOptInRun, startOptInRun, type OptInRunLeft } from './opt-in-schedule';

/** Owed mails read per Query of a shard. */
const pageSize = 100;

/** When SES throttles or pauses, or a mail fails, the run is booked again this much later. */
export const optInRetryMs = 60_000;

export interface OptInRunSummary {
  /** Confirmation mails SES took. */
  sent: number;
  /** Owed mails settled without a mail: their contact is confirmed, deleted or at another address. */
  settled: number;
  /** Waiting for their sender to be verified (or for their type to name an existing sender). */
  waitingForSender: number;
  /** Left for the next hour's budget, the next run (refused or throttled) or, when the run's time ran out, its next run. */
  deferred: number;
}

/** The public confirmation page a mail links to. */
export function optInConfirmUrl(token: string): string {
  return `${config().publicBaseUrl}public/opt-in/confirm?token=${encodeURIComponent(token)}`;
}

/** The confirmation mail of one contact, from its type's opt-in sender. */
export function optInMail(contact: ContactRecord, sender: Sender): OutgoingMail {
  const link = optInConfirmUrl(signOptInConfirmation({ accountId: contact.user_id, contactId: contact.id, email: contact.email }));
  const who = sender.from_name.trim() === '' ? sender.from_email : sender.from_name;
  const subject = `Please confirm your subscription to ${who}`;
  const text = [
    `Please confirm that you want to receive email from ${who} at ${contact.email}.`,
    '',
    `Open this link and press the button on the page: ${link}`,
    '',
    'If you did not ask for this, ignore this mail: you will not be subscribed and will get nothing more from us.',
    '',
    [sender.company_address, sender.company_address2 ?? ''].filter((line) => line.trim() !== '').join(', '),
  ].join('\n');
  const html = `<!DOCTYPE html><html><body style="font-family:Arial,Helvetica,sans-serif;color:#222;line-height:1.5">
<p>Please confirm that you want to receive email from ${escapeHtml(who)} at ${escapeHtml(contact.email)}.</p>
<p><a href="${escapeHtml(link)}">Confirm my subscription</a></p>
<p>If you did not ask for this, ignore this mail: you will not be subscribed and will get nothing more from us.</p>
<p style="font-size:12px;color:#555">${escapeHtml([sender.company_address, sender.company_address2 ?? ''].filter((line) => line.trim() !== '').join(', '))}</p>
</body></html>`;
  return {
    from: sender.from_name.trim() === '' ? sender.from_email : `${sender.from_name} <${sender.from_email}>`,
    to: [contact.email],
    replyTo: [sender.reply_to_email],
    subject,
    html,
    text,
    // Bounces and complaints come back through the service's configuration set; no tag names a send.
    configurationSetName: sendingSettings().configurationSetName,
  };
}

/** What one run reads once: types and senders, by id. */
class RunCache {
  private readonly types = new Map<number, ContactType | undefined>();
  private readonly senders = new Map<number, Promise<Sender | undefined>>();

  constructor(private readonly accountId: number) {}

  async typesOf(ids: number[]): Promise<Map<number, ContactType | undefined>> {
    const missing = [...new Set(ids)].filter((id) => !this.types.has(id));
    if (missing.length > 0) {
      const found = await getContactTypes(this.accountId, missing);
      for (const id of missing) this.types.set(id, found.get(id));
    }
    return this.types;
  }

  sender(id: number): Promise<Sender | undefined> {
    let sender = this.senders.get(id);
    if (!sender) {
      sender = currentSender(this.accountId, id);
      this.senders.set(id, sender);
    }
    return sender;
  }
}

type MailOutcome = 'sent' | 'settled' | 'waiting' | 'deferred' | 'budget' | 'throttled' | 'failed';

/**
 * Mail one owed contact, or say why not. The budget's place is taken once the mail is known to be
 * sendable and the item claimed, and given back if SES does not take the mail.
 */
async function mailOne(accountId: number, owed: OwedOptInMail, contact: ContactRecord | undefined, type: ContactType | undefined, cache: RunCache): Promise<MailOutcome> {
  if (!contact || contact.subscription_status !== 'pending') {
    await settleOptInMail(owed.key);
    return 'settled';
  }
  // A pending contact moved into another type since it was owed its mail: the mail is the new type's,
  // from its opt-in sender, or none at all when the new type does not ask for double opt-in.
  const current = contact.contact_type_id === owed.contactTypeId ? type : (await cache.typesOf([contact.contact_type_id])).get(contact.contact_type_id);
  if (contact.contact_type_id !== owed.contactTypeId && current?.double_opt_in !== 1) {
    await settleOptInMail(owed.key);
    return 'settled';
  }
  const sender = current?.opt_in_sender_id ? await cache.sender(current.opt_in_sender_id) : undefined;
  if (!sender || sender.is_verified !== 1) return 'waiting';
  const claimedAt = await claimOptInMail(owed);
  // Another run holds it: that run mails it.
  if (!claimedAt) return 'deferred';
  const place = await claimOptInPlace(accountId);
  if (!place.allowed) {
    await releaseOptInMail(owed, claimedAt);
    return 'budget';
  }
  try {
    // The account's mail, under its SES tenant as its sends are.
    const { tenantName } = await withAccountTenant(accountId, { fromEmail: sender.from_email } as { fromEmail: string; tenantName?: string });
    await sendMail({ ...optInMail(contact, sender), ...(tenantName ? { tenantName } : {}) });
  } catch (error) {
    await Promise.all([releaseOptInMail(owed, claimedAt), releaseOptInPlace(place.key)]);
    if (error instanceof MailThrottledError || error instanceof MailSendingPausedError) return 'throttled';
    log.warn('confirmation mail refused; it is tried again', { accountId, contactId: contact.id, ...describeError(error) });
    return 'failed';
  }
  await settleOptInMail(owed.key);
  return 'sent';
}

/**
 * Mail what the account owes, shard by shard, while `keepGoing` says there is time. Books its next
 * run: at the next hour when the budget ran out, in a minute after SES throttled or refused a mail or
 * when the time ran out; not at all when all that is left waits for a sender. The account's entry on
 * the index of accounts owing mails says the same, for the watchdog (opt-in-schedule.ts).
 */
export async function runOptInMails(accountId: number, keepGoing: () => boolean = () => true): Promise<OptInRunSummary> {
  const summary: OptInRunSummary = { sent: 0, settled: 0, waitingForSender: 0, deferred: 0 };
  const watch = await startOptInRun(accountId);
  const cache = new RunCache(accountId);
  let nextRun: Date | undefined;
  const later = (at: Date) => {
    if (!nextRun || at < nextRun) nextRun = at;
  };
  let stopped = false;
  for (let shard = 0; shard < optInOutboxShards && !stopped; shard++) {
    let after: number | null = null;
    for (;;) {
      if (!keepGoing()) {
        stopped = true;
        later(new Date(currentTime().getTime() + 1_000));
        break;
      }
      const page = await owedOptInMailsPage(accountId, shard, after, pageSize);
      if (page.length === 0) break;
      after = (page.at(-1) as OwedOptInMail).contactId;
      const [contacts, types] = await Promise.all([getContacts(accountId, page.map((owed) => owed.contactId)), cache.typesOf(page.map((owed) => owed.contactTypeId))]);
      for (const owed of page) {
        if (stopped) {
          summary.deferred++;
          continue;
        }
        const outcome = await mailOne(accountId, owed, contacts.get(owed.contactId), types.get(owed.contactTypeId), cache);
        if (outcome === 'sent') summary.sent++;
        else if (outcome === 'settled') summary.settled++;
        else if (outcome === 'waiting') summary.waitingForSender++;
        else summary.deferred++;
        if (outcome === 'budget') {
          later(nextHour());
          stopped = true;
        } else if (outcome === 'throttled') {
          later(new Date(currentTime().getTime() + optInRetryMs));
          stopped = true;
        } else if (outcome === 'failed' || outcome === 'deferred') later(new Date(currentTime().getTime() + optInRetryMs));
      }
      if (page.length < pageSize || stopped) break;
    }
  }
  let left: OptInRunLeft = { owed: 'nothing' };
  if (nextRun) left = { owed: 'later', at: nextRun };
  else if (summary.waitingForSender > 0) left = { owed: 'waiting-for-sender' };
  await endOptInRun(accountId, watch, left);
  log.info('confirmation mails run', { accountId, ...summary, nextRun: nextRun?.toISOString() ?? null });
  return summary;
}

/** The start of the next clock hour: when a spent budget is whole again. */
function nextHour(): Date {
  const hour = 3_600_000;
  return new Date((Math.floor(currentTime().getTime() / hour) + 1) * hour);
}
