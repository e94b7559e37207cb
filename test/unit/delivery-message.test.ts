// The delivery queue's message: what the dispatcher writes is what the deliverer reads; anything
// malformed is refused rather than half-delivered.
import { deliveryMessageBody, parseDeliveryMessage, type DeliveryMessage } from '../../shared/sending/delivery-message';
import { encodeSendRef } from '../../shared/sending/send-ref';

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
