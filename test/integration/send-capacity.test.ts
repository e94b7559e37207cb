// What a single send costs DynamoDB, measured by the capacity meter (bench/lib/capacity-meter.ts) on
// DynamoDB Local, which bills as DynamoDB does when asked: a send with a 300 KB design, from its
// dispatch to its last SES delivery event, stays within 4.5 write units per mail in all (indexes
// included: the ledger's claim and mark, which are also the contact's `sent` line, the delivery
// marker and its count, about 4.3), at most 0.3 per mail on any one item, and reads its design a fixed number of times,
// never per mail. (The API's create writes the design once; that write is the API's, not the send's.)
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { singleSendKey } from '../../shared/single-sends/keys';
import { getSingleSend } from '../../shared/single-sends/repository';
import { sendCapacity, startCapacityMeter } from '../../bench/lib/capacity-meter';
import { accountWithContacts, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

/** A design of about `bytes` bytes: a newsletter of many paragraphs, personalised at the top. */
function largeDesign(bytes: number): string {
  const paragraph = '<p style="margin:0 0 12px 0;font-family:Arial,sans-serif;color:#333">Spring brings new arrivals to the shop, and readers like you get them first.</p>\n';
  const body = paragraph.repeat(Math.ceil(bytes / paragraph.length));
  return `<!DOCTYPE html><html><head><title>News</title></head><body><p>Dear ((full_name)),</p>\n${body}</body></html>`;
}

const recipients = 200;

// Two hundred renders of a 300 KB design and their mails through the sink: time, not a limit on it.
jest.setTimeout(600_000);

/** The capacity the send consumes from its dispatch to its last delivery event. */
async function metered(accountId: number, utr: string): Promise<ReturnType<typeof startCapacityMeter>> {
  const meter = startCapacityMeter();
  try {
    await dispatchHandler({ accountId, utr });
    await localQueueIdle();
    await env.sink.eventsIdle();
  } finally {
    meter.stop();
  }
  return meter;
}

test('a send with a 300 KB design: at most 4.5 write units a mail in all, 0.3 on any item, no design read per mail', async () => {
  const { accountId, typeId, emails } = await accountWithContacts(recipients);
  const send = await readySend(accountId, { recipient_id: [{ id: String(typeId), table: 'contacts_' }], template_html: largeDesign(300_000) });

  const meter = await metered(accountId, send.utr);

  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 3, triggered: emails.length, delivered: emails.length });
  const cost = sendCapacity(meter, recipients, singleSendKey(accountId, send.utr));
  // Printed for the record: the figures docs/architecture.md reports come from this meter.
  process.stdout.write(`send capacity, ${recipients} mails, 300 KB design: ${JSON.stringify(cost)}\n`);
  expect(cost.write_units_per_mail).toBeLessThanOrEqual(4.5);
  expect(cost.hottest_item.write_units_per_mail).toBeLessThanOrEqual(0.3);
  // Once by the dispatcher's run, once by the one deliverer container, once for the completion summary.
  expect(cost.design_reads).toBeLessThanOrEqual(3);
});

test('a send writes the index only to put its stall watch entry on and take it off: the same for 3 batches as for 1, none per page or settled batch', async () => {
  const indexWriteUnits = async (count: number) => {
    const { accountId, typeId } = await accountWithContacts(count);
    const send = await readySend(accountId, { recipient_id: [{ id: String(typeId), table: 'contacts_' }] });
    const meter = await metered(accountId, send.utr);
    expect(await getSingleSend(accountId, send.utr)).toMatchObject({ status: 3, triggered: count });
    return meter.items().filter((item) => item.key.startsWith('gsi1|')).reduce((sum, item) => sum + item.writeShare, 0);
  };

  const one = await indexWriteUnits(50);
  const three = await indexWriteUnits(150);

  expect(one).toBeGreaterThan(0);
  expect(three).toBeCloseTo(one, 6);
});
