// The local queue keeps SQS's ChangeMessageVisibility for what the webhook deliverer uses: a failed
// message comes back after the delay its consumer set, not the usual redelivery delay, and the
// webhook queue dead-letters after its own receive count (8), not the default (5).
import type { SQSEvent } from 'aws-lambda';
import { resetConfig } from '../../shared/config';
import { configureLocalQueue, localDeadLetters, localQueueIdle, registerLocalConsumer, stopLocalQueues } from '../../shared/queue/local-queue';
import { sendMessages } from '../../shared/queue/queue';
import { retryMessageAfter } from '../../shared/queue/visibility';
import { maxReceiveCountOf } from '../../shared/queue/queues';

let unregister: (() => void) | undefined;

beforeEach(() => {
  Object.assign(process.env, { APP_RUNTIME: 'local', TABLE_NAME: process.env.TABLE_NAME ?? 'unused' });
  resetConfig();
  configureLocalQueue({ redeliveryDelayMs: 20, log: () => undefined });
});

afterEach(async () => {
  unregister?.();
  await stopLocalQueues();
});

test('a message whose visibility was changed comes back after that delay, others after the usual one', async () => {
  const receives: { n: number; at: number }[] = [];
  unregister = registerLocalConsumer('webhooks', async (event: SQSEvent) => {
    const failures = [];
    for (const record of event.Records) {
      const { n } = JSON.parse(record.body) as { n: number };
      receives.push({ n, at: Date.now() });
      if (record.attributes.ApproximateReceiveCount !== '1') continue;
      // Message 1 asks to come back in a second; message 2 takes the queue's usual delay.
      if (n === 1) await retryMessageAfter('webhooks', record.receiptHandle, 1);
      failures.push({ itemIdentifier: record.messageId });
    }
    return { batchItemFailures: failures };
  });

  const sentAt = Date.now();
  await sendMessages('webhooks', [{ n: 1 }, { n: 2 }]);
  await localQueueIdle();

  expect(receives.map((receive) => receive.n)).toEqual([1, 2, 2, 1]);
  const second = (n: number) => receives.filter((receive) => receive.n === n)[1]?.at ?? 0;
  expect(second(1) - sentAt).toBeGreaterThanOrEqual(1_000);
  expect(second(2)).toBeLessThan(second(1));
});

test('an old receipt handle changes nothing', async () => {
  const receives: string[] = [];
  unregister = registerLocalConsumer('webhooks', async (event: SQSEvent) => {
    const [record] = event.Records as [SQSEvent['Records'][number]];
    receives.push(record.attributes.ApproximateReceiveCount);
    if (record.attributes.ApproximateReceiveCount === '1') {
      // A handle of a receive that is not this one (SQS refuses those; locally they are ignored).
      await retryMessageAfter('webhooks', `${record.messageId}#7`, 600);
      return { batchItemFailures: [{ itemIdentifier: record.messageId }] };
    }
    return { batchItemFailures: [] };
  });

  await sendMessages('webhooks', [{ n: 1 }]);
  await localQueueIdle();

  expect(receives).toEqual(['1', '2']);
});

test('the webhook queue dead-letters after its own receive count', async () => {
  let receives = 0;
  unregister = registerLocalConsumer('webhooks', async (event: SQSEvent) => {
    receives += event.Records.length;
    return { batchItemFailures: event.Records.map((record) => ({ itemIdentifier: record.messageId })) };
  });

  await sendMessages('webhooks', [{ n: 1 }]);
  await localQueueIdle();

  expect(maxReceiveCountOf('webhooks')).toBe(8);
  expect(receives).toBe(8);
  expect(localDeadLetters('webhooks').map((letter) => letter.receiveCount)).toEqual([8]);
});

test('a visibility timeout outside SQS bounds is refused', async () => {
  await expect(retryMessageAfter('webhooks', 'x#1', 43_201)).rejects.toThrow('0 to 43200 whole seconds');
  await expect(retryMessageAfter('webhooks', 'x#1', 1.5)).rejects.toThrow('0 to 43200 whole seconds');
});
