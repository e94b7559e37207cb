// The dispatcher puts each send's delivery messages in its account's message group, so the delivery
// queue (an SQS fair queue) serves a small account's mail while a big account's send drains.
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { localQueueIdle, registerLocalConsumer } from '../../shared/queue/local-queue';
import { accountWithContacts, mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

test('delivery messages of a send carry its account id as the message group', async () => {
  // Prepare: record each delivery record's group on its way to the real consumer.
  const groups: Array<string | undefined> = [];
  const unregister = registerLocalConsumer('deliveries', async (event) => {
    groups.push(...event.Records.map((record) => record.attributes.MessageGroupId));
    return deliverHandler(event);
  });
  try {
    const { accountId, typeId, emails } = await accountWithContacts(3);
    const send = await readySend(accountId, { recipient_id: [{ id: String(typeId), table: 'contacts_' }] });

    // Act
    await dispatchHandler({ accountId, utr: send.utr });
    await localQueueIdle();

    // Assess
    expect(groups.length).toBeGreaterThan(0);
    expect(new Set(groups)).toEqual(new Set([String(accountId)]));
    expect(await mailsTo(env.sink, emails)).toHaveLength(3);
  } finally {
    unregister();
    registerLocalConsumer('deliveries', (event) => deliverHandler(event));
  }
});
