// A page whose recipients carry large custom fields: the dispatcher splits it into delivery messages
// by serialized size as well as by count, so every message fits SQS's 256 KiB, nobody is lost and the
// send completes. A recipient whose own fields could never fit loses its largest values, not its mail.
import type { SQSEvent } from 'aws-lambda';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { maxBatchBytes } from '../../shared/queue/queues';
import { getDispatchState } from '../../shared/single-sends/progress';
import { getSingleSend } from '../../shared/single-sends/repository';
import * as recipients from '../../shared/single-send-runs/recipients';
import { accountWithContacts, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

/** Addresses (lower-cased) whose page entries get a ~10 KB custom field, and the one given a field no message could hold. */
const padded = new Set<string>();
let oversized = '';

jest.mock('../../shared/single-send-runs/recipients', () => {
  const actual = jest.requireActual<typeof recipients>('../../shared/single-send-runs/recipients');
  return {
    ...actual,
    nextAudiencePage: jest.fn(async (...args: Parameters<typeof actual.nextAudiencePage>) => {
      const page = await actual.nextAudiencePage(...args);
      if (!page) return page;
      return {
        ...page,
        recipients: page.recipients.map((recipient) => {
          const address = recipient.email.toLowerCase();
          if (!padded.has(address)) return recipient;
          const fields: Record<string, string> = { ...recipient.fields, notes: 'n'.repeat(10_000), bio: 'b'.repeat(500) };
          if (address === oversized) fields.history = 'h'.repeat(300_000);
          return { ...recipient, fields };
        }),
      };
    }),
  };
});

let env: SendingEnvironment;
const bodies: string[] = [];

beforeAll(async () => {
  env = await startSendingEnvironment();
  registerLocalConsumer('deliveries', async (event: SQSEvent) => {
    // What the dispatcher fanned out: a batch's turn that ends before its last recipient continues in a
    // fresh message of the same batch (with `settledBefore`), which is the deliverer's, not a fan-out.
    bodies.push(...event.Records.map((record) => record.body).filter((body) => (JSON.parse(body) as { settledBefore?: unknown }).settledBefore === undefined));
    return deliverHandler(event);
  });
}, 60_000);

afterAll(async () => {
  await env.stop();
});

describe('recipients with large custom fields', () => {
  test('60 recipients with ~10 KB of fields each: several messages each within SQS limits, everyone mailed once, the send completes', async () => {
    // Prepare: 60 contacts (one page), each carrying ~10.5 KB of field values: 50 of them exceed 256 KiB.
    const audience = await accountWithContacts(60);
    audience.emails.forEach((email) => padded.add(email.toLowerCase()));
    oversized = (audience.emails[7] as string).toLowerCase();
    const send = await readySend(audience.accountId, { recipient_id: [{ id: String(audience.typeId), table: 'contacts_' }] });

    // Act
    await dispatchHandler({ accountId: audience.accountId, utr: send.utr });
    await localQueueIdle();

    // Assess: every message fits SQS, the page's batch ids are unique and stable, nobody is lost.
    const messages = bodies.map((body) => JSON.parse(body) as { batchId: string; recipients: { email: string; fields: Record<string, string> }[]; ledgerByAddress?: boolean });
    const ours = messages.filter((message) => message.recipients.some((recipient) => padded.has(recipient.email.toLowerCase())));
    expect(ours.length).toBeGreaterThan(2);
    // Dispatched since the ledger was kept by address: its deliverers never look in the layout before.
    for (const message of ours) expect(message.ledgerByAddress).toBe(true);
    for (const body of bodies) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(maxBatchBytes);
    const batchIds = ours.map((message) => message.batchId);
    expect(new Set(batchIds).size).toBe(batchIds.length);
    expect([...batchIds].sort()).toEqual(ours.map((_, index) => `0.${index}`).sort());
    const carried = ours.flatMap((message) => message.recipients.map((recipient) => recipient.email.toLowerCase()));
    expect([...carried].sort()).toEqual(audience.emails.map((email) => email.toLowerCase()).sort());

    // The oversized recipient still goes out, without the value no message could hold; its other fields stay.
    const big = ours.flatMap((message) => message.recipients).find((recipient) => recipient.email.toLowerCase() === oversized);
    expect(big?.fields.history).toBeUndefined();
    expect(big?.fields.notes).toHaveLength(10_000);
    expect(big?.fields.first_name).toBeDefined();

    const mails = await mailsTo(env.sink, audience.emails);
    expect(mails).toHaveLength(60);
    expect(await getSingleSend(audience.accountId, send.utr)).toMatchObject({ status: 3, triggered: 60 });
    expect(await getDispatchState(audience.accountId, send.utr)).toMatchObject({ done: true, fannedBatches: ours.length, settledBatches: ours.length, fannedRecipients: 60 });
  }, 120_000);
});
