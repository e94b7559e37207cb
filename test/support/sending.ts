// Fixtures for the sending pipeline's tests: a table of the file's own, the SES sink in process, the
// in-process delivery queue wired to the real deliver handler, and ready-to-dispatch single sends.
import type { SQSEvent } from 'aws-lambda';
import type { SesSink } from '../../infra/local/ses-sink';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { type ContactFields } from '../../shared/contacts/repository';
import { importContactRows } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-lookup';
import { importChunkRows } from '../../shared/audience/import-runner';
import { createSingleSend, type SingleSend, type SingleSendContent } from '../../shared/single-sends/repository';
import { configureLocalQueue, registerLocalConsumer, stopLocalQueues } from '../../shared/queue/local-queue';
import { resetSendBucket } from '../../shared/delivery/deliver';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { newAccount } from './accounts';
import { useTestTable, type TestTable } from './local-stack';
import { place, startMailSink, stopMailSink } from './senders';
import { addSender, confirmSenderAddress, type Sender } from '../../shared/senders/repository';

export interface SinkMail {
  messageId: string;
  from: string;
  replyTo: string[];
  destination: { to: string[] };
  subject: string;
  body: { html?: string; text?: string };
  headers?: { name: string; value: string }[];
  /** When the sink took the mail, in whole seconds since the epoch. */
  at?: number;
}

export interface SendingEnvironment {
  table: TestTable;
  sink: SesSink;
  stop(): Promise<void>;
}

/** A table, the sink and the delivery queue (consumer: functions/send-deliver), with quick redelivery. */
export async function startSendingEnvironment(): Promise<SendingEnvironment> {
  const table = await useTestTable();
  const sink = await startMailSink();
  resetSendingSettings();
  resetSendBucket();
  configureLocalQueue({ redeliveryDelayMs: 50, log: () => undefined });
  const unregister = registerLocalConsumer('deliveries', (event) => deliverHandler(event));
  return {
    table,
    sink,
    async stop() {
      unregister();
      await stopLocalQueues();
      await stopMailSink(sink);
      await table.stop();
    },
  };
}

/** Every mail in the sink (the store is shared by the process: filter by recipient). */
export async function sinkMails(sink: SesSink): Promise<SinkMail[]> {
  const response = await fetch(`${sink.endpoint}/store`);
  return ((await response.json()) as { emails: SinkMail[] }).emails;
}

export async function mailsTo(sink: SesSink, addresses: readonly string[]): Promise<SinkMail[]> {
  const wanted = new Set(addresses.map((address) => address.toLowerCase()));
  return (await sinkMails(sink)).filter((mail) => mail.destination.to.some((to) => wanted.has(to.toLowerCase())));
}

export function headerOf(mail: SinkMail, name: string): string | undefined {
  return mail.headers?.find((header) => header.name.toLowerCase() === name.toLowerCase())?.value;
}

let contactCounter = 0;

export function contactFields(contactTypeId: number, email: string, overrides: Partial<ContactFields> = {}): ContactFields {
  contactCounter++;
  return {
    contact_type_id: contactTypeId,
    first_name: `First${contactCounter}`,
    last_name: 'Tester',
    email,
    alt_email: null,
    country: '',
    state: 'Virginia',
    city: 'Springfield',
    address_line1: '7 Elm Street',
    address_line2: '',
    state_province_region: '',
    postal_code: '22202',
    ...overrides,
  };
}

/** A design of about `bytes` bytes: a newsletter of many paragraphs, personalised at the top. */
export function largeDesign(bytes: number): string {
  const paragraph = '<p style="margin:0 0 12px 0;font-family:Arial,sans-serif;color:#333">Spring brings new arrivals to the shop, and readers like you get them first.</p>\n';
  const body = paragraph.repeat(Math.ceil(bytes / paragraph.length));
  return `<!DOCTYPE html><html><head><title>News</title></head><body><p>Dear ((full_name)),</p>\n${body}</body></html>`;
}

/** Columns a fixture contact gives (contactFields), as a CSV import names them. */
const fixtureColumns = new Set(['first_name', 'last_name', 'email', 'country', 'state', 'city', 'address_line1', 'postal_code']);

/**
 * Writes fixture contacts into a type through the CSV import's write path, 500 rows a call: the same
 * items, counts, segment and automation joins as contacts/add, in batched transactions instead of
 * one per contact (under a third of the time for 200, measured on DynamoDB Local). Fails unless each was created.
 */
export async function importFixtureContacts(accountId: number, contactTypeId: number, emails: readonly string[]): Promise<void> {
  for (let start = 0; start < emails.length; start += importChunkRows) {
    const rows: ImportRow[] = emails.slice(start, start + importChunkRows).map((email, index) => ({ line: start + index + 2, fields: contactFields(contactTypeId, email), customValues: {} }));
    const result = await importContactRows(accountId, contactTypeId, rows, fixtureColumns);
    if (result.imported !== rows.length) throw new Error(`fixture contacts: ${result.imported} of ${rows.length} created (${JSON.stringify(result.refused)})`);
  }
}

/** A fresh account with one contact type holding `count` contacts at unique addresses, their ids in the order of `emails`. */
export async function accountWithContacts(count: number): Promise<{ accountId: number; typeId: number; emails: string[] }> {
  const account = await newAccount();
  const type = await addContactType(account.account_id, 'Newsletter');
  const tag = Math.random().toString(36).slice(2, 8);
  const emails = Array.from({ length: count }, (_, i) => `reader-${tag}-${String(i).padStart(6, '0')}@example.com`);
  await importFixtureContacts(account.account_id, type.id, emails);
  return { accountId: account.account_id, typeId: type.id, emails };
}

export function sendContent(overrides: Partial<SingleSendContent> = {}): SingleSendContent {
  return {
    template_id: 1,
    sender_id: 1,
    unsubscribe_group_id: 0,
    recipient_id: [],
    exclude_specific_recipient_id: [],
    single_send_name: 'Spring news',
    subject: 'Hello ((first_name))',
    preheader: 'Our spring issue',
    from_sender: 'news@acme.example',
    reply_to: 'support@acme.example',
    sender_name: 'Acme News',
    sender_address: '1 Main Street, Springfield, 90001, United States',
    schedule_type: 0,
    schedule_date: '0000-00-00',
    schedule_time: '00:00:00',
    template_json: null,
    template_html: '<!DOCTYPE html><html><head><title>News</title></head><body><p>Dear ((full_name)),</p><p>Plan: ((plan))</p></body></html>',
    ...overrides,
  };
}

/**
 * A send in status 1 (ready), due now, as the API leaves an immediate send before its job fires. Its
 * sender is a real, verified sender of the account at `from_sender` (the dispatcher checks it at every
 * run), unless the overrides name one.
 */
export async function readySend(accountId: number, overrides: Partial<SingleSendContent> = {}): Promise<SingleSend> {
  const content = sendContent(overrides);
  if (overrides.sender_id === undefined) content.sender_id = (await verifiedSender(accountId, content.from_sender)).id;
  return createSingleSend(accountId, content, new Date());
}

/** A sender of the account mailing from `fromEmail`, not verified yet. */
export function unverifiedSender(accountId: number, fromEmail: string): Promise<Sender> {
  return addSender(accountId, {
    from_name: 'Acme News',
    from_email: fromEmail,
    reply_to_email: 'support@acme.example',
    country_id: place.usa,
    state_id: null,
    city_id: null,
    zip_code: '90001',
    company_address: '1 Main Street',
    company_address2: null,
    nickname: 'News',
  });
}

/** A verified sender of the account mailing from `fromEmail`. */
export async function verifiedSender(accountId: number, fromEmail: string): Promise<Sender> {
  const sender = await unverifiedSender(accountId, fromEmail);
  await confirmSenderAddress(accountId, sender.id, fromEmail);
  return { ...sender, is_verified: 1 };
}

/** An SQS event as Lambda hands it over, for calling the deliver handler directly. */
export function sqsEvent(bodies: unknown[], receiveCount = 1): SQSEvent {
  return {
    Records: bodies.map((body, index) => ({
      messageId: `message-${index}`,
      receiptHandle: `receipt-${index}`,
      body: JSON.stringify(body),
      attributes: {
        ApproximateReceiveCount: String(receiveCount),
        SentTimestamp: String(Date.now()),
        SenderId: 'TEST',
        ApproximateFirstReceiveTimestamp: String(Date.now()),
      },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:deliveries',
      awsRegion: 'us-east-1',
    })),
  };
}

/** What the SES stand-in does with the n-th SendEmail call (1-based). */
export type SesBehaviour = 'forward' | 'throttle' | 'forward-then-hang' | 'forward-then-reset';

export interface SesProxy {
  endpoint: string;
  /** SendEmail calls seen, and how each was answered. */
  calls: SesBehaviour[];
  /** When each call arrived (ms since the epoch). */
  arrivals: number[];
  stop(): Promise<void>;
}

/**
 * A stand-in SES endpoint in front of the sink: it forwards calls to the real sink, answers some with
 * SES's 429 TooManyRequestsException, forwards and then never answers (a Lambda killed while SES
 * was taking the mail), or forwards and then drops the connection (the answer lost on the way back).
 * Only the transport misbehaves; the mail still goes through the real sink.
 */
export async function startSesProxy(sink: SesSink, behaviour: (call: number) => SesBehaviour): Promise<SesProxy> {
  const { createServer } = await import('node:http');
  const calls: SesBehaviour[] = [];
  const arrivals: number[] = [];
  const server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const body = Buffer.concat(chunks);
      const action = behaviour(calls.length + 1);
      calls.push(action);
      arrivals.push(Date.now());
      if (action === 'throttle') {
        response.writeHead(429, { 'content-type': 'application/json', 'x-amzn-errortype': 'TooManyRequestsException' });
        response.end(JSON.stringify({ message: 'Maximum sending rate exceeded.' }));
        return;
      }
      const headers = Object.fromEntries(Object.entries(request.headers).filter(([name]) => !['host', 'content-length', 'connection'].includes(name))) as Record<string, string>;
      void fetch(`${sink.endpoint}${request.url ?? '/'}`, { method: request.method, headers, body })
        .then(async (forwarded) => {
          if (action === 'forward-then-hang') return;
          if (action === 'forward-then-reset') {
            response.socket?.destroy();
            return;
          }
          response.writeHead(forwarded.status, { 'content-type': forwarded.headers.get('content-type') ?? 'application/json' });
          response.end(Buffer.from(await forwarded.arrayBuffer()));
        })
        .catch(() => response.destroy());
    });
  });
  await new Promise<void>((listening) => server.listen(0, '127.0.0.1', listening));
  const port = (server.address() as { port: number }).port;
  return {
    endpoint: `http://127.0.0.1:${port}`,
    calls,
    arrivals,
    stop: () =>
      new Promise<void>((closed) => {
        server.close(() => closed());
        server.closeAllConnections();
      }),
  };
}
