// The delivery queue's message: what the dispatcher writes is what the deliverer reads; anything
// malformed is refused rather than half-delivered.
import { maxBatchBytes } from '../../shared/queue/queues';
import { batchesOf } from '../../shared/queue/aws-queue';
import {
  deliveryMessageBody,
  maxDeliveryMessageBytes,
  packRecipients,
  parseDeliveryMessage,
  recipientsPerMessage,
  type DeliveryMessage,
  type DeliveryRecipient,
  type TrimmedRecipient,
} from '../../shared/delivery/delivery-message';
import { encodeSendRef } from '../../shared/ledger/send-ref';

const message: DeliveryMessage = {
  ref: { kind: 'single-send', accountId: 3, utr: '0b7c6a43-3d1e-4b0e-9a55-4f5bb0c1c2d3' },
  recipients: [{ email: 'ada@example.com', contactId: 12, fields: { first_name: 'Ada' } }],
  batchId: '4.0',
};

describe('delivery messages', () => {
  test('round trip through JSON', () => {
    expect(parseDeliveryMessage(JSON.stringify(deliveryMessageBody(message)))).toEqual(message);
  });

  test('the ref may also travel as its compact text', () => {
    expect(parseDeliveryMessage(JSON.stringify({ ...message, ref: encodeSendRef(message.ref) }))).toEqual(message);
  });

  test('carried settlement counts survive', () => {
    const carried = { ...message, settledBefore: { sent: 3, skipped: 1, failed: 0 } };
    expect(parseDeliveryMessage(JSON.stringify(deliveryMessageBody(carried)))).toEqual(carried);
  });

  test('how its send reads the ledger and the suppressions survives, and only `true` counts', () => {
    const flagged: DeliveryMessage = { ...message, ledgerByAddress: true, suppressionState: true };
    expect(parseDeliveryMessage(JSON.stringify(deliveryMessageBody(flagged)))).toEqual(flagged);
    expect(parseDeliveryMessage(JSON.stringify({ ...deliveryMessageBody(message), suppressionState: 'yes' }))).toEqual(message);
  });

  test.each([
    ['no ref', { recipients: [] }],
    ['a bad ref', { ref: 'x.1.y', recipients: [] }],
    ['no recipients', { ref: message.ref }],
    ['a recipient without fields', { ref: message.ref, recipients: [{ email: 'a@example.com', contactId: null }] }],
    ['a non-text field', { ref: message.ref, recipients: [{ email: 'a@example.com', contactId: null, fields: { age: 3 } }] }],
  ])('%s is refused', (_, body) => {
    expect(() => parseDeliveryMessage(JSON.stringify(body))).toThrow();
  });
});

describe('packing a page into messages', () => {
  const recipient = (i: number, fieldBytes = 0): DeliveryRecipient => ({
    email: `reader-${i}@example.com`,
    contactId: i,
    fields: { first_name: `Reader ${i}`, ...(fieldBytes > 0 ? { notes: 'x'.repeat(fieldBytes) } : {}) },
  });
  const bodiesOf = (groups: DeliveryRecipient[][]) =>
    groups.map((recipients, index) => JSON.stringify(deliveryMessageBody({ ref: message.ref, recipients, batchId: `123456.${index}` })));

  test('small recipients: by count, 100 a message', () => {
    expect(recipientsPerMessage).toBe(100);
    const groups = packRecipients(message.ref, Array.from({ length: 220 }, (_, i) => recipient(i)));
    expect(groups.map((group) => group.length)).toEqual([100, 100, 20]);
  });

  test('50 recipients of ~10 KB each: several messages, each within SQS limits (also once re-queued with counts), nobody lost, in order', () => {
    const page = Array.from({ length: 50 }, (_, i) => recipient(i, 10_000));
    const groups = packRecipients(message.ref, page);
    expect(groups.length).toBeGreaterThan(1);
    expect(groups.flat()).toEqual(page);
    for (const body of bodiesOf(groups)) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(maxDeliveryMessageBytes);
    for (const recipients of groups) {
      const requeued = deliveryMessageBody({ ref: message.ref, recipients, batchId: '123456.12', settledBefore: { sent: 1e9, skipped: 1e9, failed: 1e9 } });
      expect(Buffer.byteLength(JSON.stringify(requeued))).toBeLessThanOrEqual(maxBatchBytes);
    }
    // SendMessageBatch's own 256 KiB limit: the sender packs such bodies one or more per batch, never over.
    for (const batch of batchesOf(bodiesOf(groups))) expect(batch.reduce((sum, body) => sum + Buffer.byteLength(body), 0)).toBeLessThanOrEqual(maxBatchBytes);
  });

  test('the same page always packs the same way (a replayed page keeps its batch ids)', () => {
    const page = Array.from({ length: 70 }, (_, i) => recipient(i, (i * 7919) % 20_000));
    expect(packRecipients(message.ref, page)).toEqual(packRecipients(message.ref, page));
  });

  test('a recipient whose own fields exceed the limit still travels, without its largest values, and is reported', () => {
    const huge: DeliveryRecipient = { email: 'big@example.com', contactId: 9, fields: { first_name: 'Big', history: 'h'.repeat(300_000), notes: 'n'.repeat(5_000) } };
    const trimmed: TrimmedRecipient[] = [];
    const groups = packRecipients(message.ref, [recipient(1), huge, recipient(2)], (entry) => trimmed.push(entry));
    const carried = groups.flat();
    expect(carried.map((entry) => entry.email)).toEqual(['reader-1@example.com', 'big@example.com', 'reader-2@example.com']);
    expect(carried[1]?.fields).toEqual({ first_name: 'Big', notes: 'n'.repeat(5_000) });
    expect(trimmed).toEqual([{ email: 'big@example.com', contactId: 9, dropped: ['history'] }]);
    for (const body of bodiesOf(groups)) expect(Buffer.byteLength(body)).toBeLessThanOrEqual(maxDeliveryMessageBytes);
  });
});
