// Single-send test fixtures: an account with everything a send names (a verified sender, a group, a
// contact type, a segment), valid form fields, calls into the handler, and the local scheduler's jobs.
import { handler } from '../../functions/single-sends/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { scheduledJobDueKey } from '../../shared/scheduling/keys';
import { addSegment } from '../../shared/segments/repository';
import { addSender, confirmSenderAddress, type Sender } from '../../shared/senders/repository';
import type { SendRef } from '../../shared/ledger/send-ref';
import { createSingleSend } from '../../shared/single-sends/repository';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { claimLocalJob, completeLocalJob, dueLocalJobs } from '../../shared/scheduling/local-scheduler';
import { newAccount } from './accounts';
import { apiEvent, authHeaders, parsed, type Keys } from './events';
import { place, uniqueAddress } from './senders';
import { sendContent } from './sending';

export type Account = Keys & { account_id: number };

export async function callSingleSends(keys: Keys | undefined, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) {
  return parsed(await handler(apiEvent({ method, path, ...options, headers: { ...(keys ? authHeaders(keys) : {}), ...options.headers } })));
}

/** A sender with a full postal address (United States > California > Los Angeles), verified unless told otherwise. */
export async function addTestSender(accountId: number, options: { verified?: boolean } = {}): Promise<Sender> {
  const sender = await addSender(accountId, {
    from_name: 'Acme News',
    from_email: uniqueAddress(),
    reply_to_email: 'support@acme.example',
    country_id: place.usa,
    state_id: place.california,
    city_id: place.losAngeles,
    zip_code: '90001',
    company_address: '1 Main Street',
    company_address2: 'Suite 100',
    nickname: 'News',
  });
  if (options.verified === false) return sender;
  await confirmSenderAddress(accountId, sender.id, sender.from_email);
  return { ...sender, is_verified: 1 };
}

export interface SendingAccount {
  keys: Account;
  sender: Sender;
  groupId: number;
  contactTypeId: number;
  segmentId: number;
}

/** A fresh account holding one of everything a single send refers to. */
export async function newSendingAccount(name = 'Sender'): Promise<SendingAccount> {
  const keys = await newAccount(name);
  const sender = await addTestSender(keys.account_id);
  const group = await addUnsubscribeGroup(keys.account_id, { group_name: 'Newsletter', description: 'Monthly news', is_display: 1 });
  const type = await addContactType(keys.account_id, 'Customers');
  const segment = await addSegment(keys.account_id, {
    contact_type_id: type.id,
    segment_name: 'In Kochi',
    conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'Kochi' }],
  });
  return { keys, sender, groupId: group.id, contactTypeId: type.id, segmentId: segment.id };
}

/**
 * A send of the account's contact type, stored as it is and scheduled far ahead (nothing dispatches
 * it), from the account's sender unless told otherwise: what tests and previews of a send start from.
 */
export async function storedSingleSend(
  account: SendingAccount,
  options: { templateHtml?: string; senderId?: number; fromEmail?: string } = {},
): Promise<SendRef & { kind: 'single-send' }> {
  const send = await createSingleSend(
    account.keys.account_id,
    sendContent({
      sender_id: options.senderId ?? account.sender.id,
      from_sender: options.fromEmail ?? account.sender.from_email,
      unsubscribe_group_id: account.groupId,
      recipient_id: [{ id: String(account.contactTypeId), table: 'contacts_' }],
      schedule_type: 1,
      schedule_date: '2099-01-01',
      schedule_time: '10:00:00',
      ...(options.templateHtml !== undefined ? { template_html: options.templateHtml } : {}),
    }),
    new Date('2099-01-01T10:00:00Z'),
  );
  return { kind: 'single-send', accountId: account.keys.account_id, utr: send.utr };
}

/** Indexed form keys for an array, as the spec's clients send them: `recipient_id[0]`, `recipient_id[1]`. */
export function indexed(name: string, values: readonly string[]): Record<string, string> {
  return Object.fromEntries(values.map((value, i) => [`${name}[${i}]`, value]));
}

/** Valid create fields for the account: an immediate send to its contact type. */
export function sendFields(account: SendingAccount, overrides: Record<string, string | number> = {}): Record<string, string | number> {
  return {
    template_id: 2,
    sender_id: account.sender.id,
    unsubscribe_group_id: account.groupId,
    single_send_name: 'Spring news',
    subject: 'Hello ((first_name))',
    preheader: 'What is new this spring',
    ...indexed('recipient_id', [`contacts_${account.contactTypeId}`]),
    schedule_type: 0,
    ...overrides,
  };
}

/** `YYYY-MM-DD` and `HH:MM:SS` of a moment, in UTC as the API reads them. */
export function utcDateAndTime(at: Date): { date: string; time: string } {
  const text = at.toISOString();
  return { date: text.slice(0, 10), time: text.slice(11, 19) };
}

export function jobName(accountId: number, utr: string): string {
  return `single-send-${accountId}-${utr}`;
}

/** The due times of the pending jobs of this name (at most one), read from the local scheduler's index. */
export async function pendingJobTimes(name: string): Promise<string[]> {
  const due = await dueLocalJobs(new Date('2999-01-01T00:00:00Z'), 1000);
  return due.filter((job) => job.name === name).map((job) => job.dueKey.slice(0, job.dueKey.indexOf('#')));
}

/** Take the job of this name due at `at` out of the scheduler, as the poller would, to read what it fires. */
export async function takeJob(name: string, at: Date) {
  const job = await claimLocalJob({ name, dueKey: scheduledJobDueKey(at, name).gsi1sk });
  if (job) await completeLocalJob(job);
  return job;
}
