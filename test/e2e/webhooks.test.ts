// Outbound webhooks on the whole local stack (`npm start` in process): a webhook saved through the
// API, an open of a mail through the public pixel, and the event received by a real HTTP receiver
// with a valid signature. Also reports the delay from the event to the receiver.
import { openPixelUrl, recipientToken } from '../../shared/public-links/recipient-links';
import { startTestStack, type TestStack } from '../support/local-stack';
import { storedSingleSend } from '../support/recipient-pages';
import { hasValidSignature, startWebhookReceiver, type WebhookReceiver } from '../support/webhook-receiver';
import { waitFor } from '../support/local-stack';

let stack: TestStack;
let receiver: WebhookReceiver;

beforeAll(async () => {
  [stack, receiver] = await Promise.all([startTestStack(), startWebhookReceiver()]);
}, 120_000);

afterAll(async () => {
  await receiver?.close();
  await stack?.stop();
}, 60_000);

async function api(method: string, path: string, form?: Record<string, string>): Promise<{ status: number; body: Record<string, unknown> }> {
  const response = await fetch(`${stack.apiUrl}${path}`, { method, headers: stack.demoHeaders, ...(form ? { body: new URLSearchParams(form) } : {}) });
  return { status: response.status, body: (await response.json()) as Record<string, unknown> };
}

test('an open reaches a real receiver as a signed webhook', async () => {
  const saved = await api('POST', 'webhooks/save', { url: receiver.url('/email-events'), 'events[0]': 'open', 'events[1]': 'click' });
  expect(saved).toEqual({ status: 200, body: { status: 'success', message: { id: 1, secret: expect.stringMatching(/^whsec_/) } } });
  const { secret } = saved.body.message as { secret: string };
  expect(await api('GET', 'webhooks')).toEqual({
    status: 200,
    body: { status: 'success', message: { webhooks: [{ id: 1, url: receiver.url('/email-events'), events: ['open', 'click'], created_at: expect.any(String) }] } },
  });
  const ref = await storedSingleSend(stack.demoAccount.account_id);

  // Two readers: the first open loads the functions (a cold start), the second shows the warm delay.
  const delays: number[] = [];
  for (const [index, email] of ['reader@example.com', 'second.reader@example.com'].entries()) {
    const openedAt = Date.now();
    const pixel = await fetch(openPixelUrl(recipientToken(ref, email, null)).replace(/^.*?\/api\//, stack.apiUrl));
    expect(pixel.status).toBe(200);
    await waitFor(() => receiver.received.length > index, 10_000, `the webhook for ${email}`);
    const request = receiver.received[index] as (typeof receiver.received)[number];
    expect(request.path).toBe('/email-events');
    expect(JSON.parse(request.body)).toEqual({ event: 'open', email, utr: ref.utr, machine: false, timestamp: expect.any(String) });
    expect(hasValidSignature(request, secret)).toBe(true);
    // From the request for the pixel, and from the moment the event was queued (its timestamp).
    delays.push(request.receivedAt - openedAt, request.receivedAt - Date.parse((JSON.parse(request.body) as { timestamp: string }).timestamp));
  }
  // Reported, not asserted: how long an event takes to reach a receiver locally.
  console.log(
    `webhook delivery delay: pixel request -> receiver cold ${delays[0]} ms, warm ${delays[2]} ms; event queued -> receiver cold ${delays[1]} ms, warm ${delays[3]} ms`,
  );
});
