// Sender test fixtures: valid input with real reference ids, the SES sink in process, and reading
// the verification mail (and its confirmation link) back out of the sink.
import { randomUUID } from 'node:crypto';
import { startSesSink, type SesSink } from '../../infra/local/ses-sink';
import { resetConfig } from '../../shared/config';
import { configureLocalQueue } from '../../shared/queue/local-queue';

/** The batching window of the SES events queue in tests: events published together still share a batch. */
export const testBatchingWindowMs = 20;

// From @countrystatecity/countries: United States > California > Los Angeles; Germany > Berlin > Adlershof; New York.
export const place = {
  usa: 233,
  california: 1416,
  losAngeles: 120784,
  newYorkState: 1452,
  germany: 82,
  berlin: 3010,
  adlershof: 23490,
} as const;

/** A from address no other test uses, so a test finds exactly its own mail in the shared sink. */
export function uniqueAddress(): string {
  return `owner-${randomUUID()}@example.com`;
}

export function senderInput(overrides: Record<string, string | number> = {}): Record<string, string | number> {
  return {
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
    ...overrides,
  };
}

export interface StoredMail {
  messageId: string;
  from: string;
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
}

/**
 * The SES sink in this process, with the mail port pointed at it (before the mailer builds its client).
 * Its events go through the local ses-events queue, whose batching window is cut to a few
 * milliseconds: a test waiting for them (`eventsIdle`) waits that, not the deployed seconds.
 */
export async function startMailSink(): Promise<SesSink> {
  configureLocalQueue({ maxBatchingWindowMs: testBatchingWindowMs });
  // Deliveries through the delivery stream's stand-in, buffered as briefly as the queue gathers them.
  const sink = await startSesSink({ port: 0, deliveryBufferMs: testBatchingWindowMs });
  process.env.SES_ENDPOINT = sink.endpoint;
  resetConfig();
  return sink;
}

export async function stopMailSink(sink: SesSink): Promise<void> {
  await sink.stop();
  delete process.env.SES_ENDPOINT;
  resetConfig();
}

/** Every mail the sink holds for one recipient, oldest first. */
export async function mailsTo(sink: SesSink, recipient: string): Promise<StoredMail[]> {
  const response = await fetch(`${sink.endpoint}/store`);
  const store = (await response.json()) as { emails: StoredMail[] };
  return store.emails.filter((mail) => mail.destination.to.includes(recipient));
}

/** The confirmation link of a verification mail: the href of its button, with HTML entities undone. */
export function confirmationLink(mail: StoredMail): URL {
  const href = /href="([^"]+)"/.exec(mail.body.html ?? '')?.[1];
  if (!href) throw new Error(`no link in mail ${mail.messageId}`);
  return new URL(href.replace(/&amp;/g, '&'));
}

/** The token of the newest verification mail to `recipient`. */
export async function latestConfirmationToken(sink: SesSink, recipient: string): Promise<string> {
  const mails = await mailsTo(sink, recipient);
  const latest = mails.at(-1);
  if (!latest) throw new Error(`no mail to ${recipient}`);
  const token = confirmationLink(latest).searchParams.get('token');
  if (!token) throw new Error(`no token in the link of mail ${latest.messageId}`);
  return token;
}
