// A batch of SES events from the ses-events queue: each send's delivery events are counted in one
// write (the markers newly claimed; one already held is a repeated event, not counted), two sends of
// a batch apart, and a send whose count fails gives its markers back and fails only its own records.
// The marker store, the counters and the webhooks are kept in memory here (the same batch on
// DynamoDB Local: test/integration/ses-events.test.ts).
import type { SQSEvent } from 'aws-lambda';
import type { SendCounts } from '../../shared/ledger/sendable';
import type { SendRef } from '../../shared/ledger/send-ref';
import type { Key } from '../../shared/table/keys';
import type { WebhookEventInput } from '../../shared/webhook-delivery/events';

const mockHeld = new Set<string>();
const mockCounts: [string, SendCounts][] = [];
const mockFailingCounts = new Set<string>();
const mockWebhooks: WebhookEventInput[] = [];

jest.mock('../../shared/ledger/repository', () => ({
  ...jest.requireActual<object>('../../shared/ledger/repository'),
  claimEventMarker: async (key: Key) => {
    const id = `${key.pk}|${key.sk}`;
    if (mockHeld.has(id)) return false;
    mockHeld.add(id);
    return true;
  },
  releaseEventMarker: async (key: Key) => {
    mockHeld.delete(`${key.pk}|${key.sk}`);
  },
}));
jest.mock('../../shared/statistics/sendable-of', () => {
  const { encodeSendRef } = jest.requireActual<typeof import('../../shared/ledger/send-ref')>('../../shared/ledger/send-ref');
  return {
    sendableOf: (ref: SendRef) => ({
      ref,
      addCounts: async (counts: SendCounts) => {
        if (mockFailingCounts.has(encodeSendRef(ref))) throw new Error('throttled');
        mockCounts.push([encodeSendRef(ref), counts]);
        return true;
      },
    }),
  };
});
jest.mock('../../shared/webhook-delivery/events', () => ({
  emitWebhookEvent: async (input: WebhookEventInput) => void mockWebhooks.push(input),
}));

import { handleSesEvents } from '../../shared/feedback/ses-event-batch';
import { encodeSendRef } from '../../shared/ledger/send-ref';

const sendA = { kind: 'single-send', accountId: 7, utr: 'aaaaaaaa-0000-4000-8000-000000000001' } as const;
const sendB = { kind: 'single-send', accountId: 7, utr: 'bbbbbbbb-0000-4000-8000-000000000002' } as const;
const step: SendRef = { kind: 'automation-step', accountId: 7, automationUtr: 'cccccccc-0000-4000-8000-000000000003', stepUtr: 'dddddddd-0000-4000-8000-000000000004' };

/** SES's delivery event of one mail, as the EventBridge rule puts it on the queue. */
function delivery(ref: SendRef, email: string): object {
  return {
    version: '0',
    id: `event-${email}`,
    'detail-type': 'Email Delivered',
    source: 'aws.ses',
    account: '000000000000',
    time: '2026-11-28T10:00:00Z',
    region: 'us-east-1',
    resources: [],
    detail: { eventType: 'Delivery', mail: { messageId: `ses-${email}`, destination: [email], tags: { send_ref: [encodeSendRef(ref)] } }, delivery: { recipients: [email] } },
  };
}

/** An SQS batch of the bodies, each message named `<name>` by its pair. */
function batch(messages: [string, object | string][]): SQSEvent {
  return {
    Records: messages.map(([messageId, body]) => ({
      messageId,
      receiptHandle: `receipt-${messageId}`,
      body: typeof body === 'string' ? body : JSON.stringify(body),
      attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now()), SenderId: 'events.amazonaws.com', ApproximateFirstReceiveTimestamp: String(Date.now()) },
      messageAttributes: {},
      md5OfBody: '',
      eventSource: 'aws:sqs',
      eventSourceARN: 'arn:aws:sqs:us-east-1:000000000000:ses-events',
      awsRegion: 'us-east-1',
    })),
  };
}

const delivered = (ref: SendRef, email: string): WebhookEventInput => ({ event: 'delivered', ref, email });

beforeAll(() => {
  process.env.LOG_LEVEL = 'silent';
});

beforeEach(() => {
  mockHeld.clear();
  mockCounts.length = 0;
  mockFailingCounts.clear();
  mockWebhooks.length = 0;
});

describe('a batch of SES events', () => {
  test('counts a send\'s deliveries in one write; an event repeated in the batch or from an earlier one counts nothing and is still acknowledged', async () => {
    await handleSesEvents(batch([['m0', delivery(sendA, 'cy@example.com')]]));
    mockCounts.length = 0;
    mockWebhooks.length = 0;

    const response = await handleSesEvents(
      batch([
        ['m1', delivery(sendA, 'ada@example.com')],
        ['m2', delivery(sendA, 'bob@example.com')],
        ['m3', delivery(sendA, 'ada@example.com')],
        ['m4', delivery(sendA, 'cy@example.com')],
      ]),
    );

    expect(response).toEqual({ batchItemFailures: [] });
    expect(mockCounts).toEqual([[encodeSendRef(sendA), { delivered: 2 }]]);
    // Every event's webhook, a repeated one's too, as when each event was applied alone.
    expect(mockWebhooks).toEqual([delivered(sendA, 'ada@example.com'), delivered(sendA, 'bob@example.com'), delivered(sendA, 'ada@example.com'), delivered(sendA, 'cy@example.com')]);
  });

  test('counts two sends and an automation step of one batch apart, one write each', async () => {
    const response = await handleSesEvents(
      batch([
        ['m1', delivery(sendA, 'ada@example.com')],
        ['m2', delivery(sendB, 'ada@example.com')],
        ['m3', delivery(step, 'ada@example.com')],
        ['m4', delivery(sendA, 'bob@example.com')],
        ['m5', delivery(sendB, 'cy@example.com')],
        ['m6', delivery(sendB, 'dee@example.com')],
      ]),
    );

    expect(response).toEqual({ batchItemFailures: [] });
    expect(mockCounts.sort(([a], [b]) => a.localeCompare(b))).toEqual(
      [
        [encodeSendRef(sendA), { delivered: 2 }],
        [encodeSendRef(sendB), { delivered: 3 }],
        [encodeSendRef(step), { delivered: 1 }],
      ].sort(([a], [b]) => String(a).localeCompare(String(b))),
    );
  });

  test('a send whose count fails gives its markers back and fails only its own records, which count once when they come back', async () => {
    mockFailingCounts.add(encodeSendRef(sendB));
    const events = batch([
      ['m1', delivery(sendA, 'ada@example.com')],
      ['m2', delivery(sendB, 'ada@example.com')],
      ['m3', delivery(sendB, 'bob@example.com')],
      ['m4', delivery(sendA, 'bob@example.com')],
    ]);

    const response = await handleSesEvents(events);

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm2' }, { itemIdentifier: 'm3' }] });
    expect(mockCounts).toEqual([[encodeSendRef(sendA), { delivered: 2 }]]);
    // B's markers were given back, A's kept; no webhook for what was not counted.
    expect([...mockHeld].filter((id) => id.includes(sendB.utr))).toEqual([]);
    expect([...mockHeld].filter((id) => id.includes(sendA.utr))).toHaveLength(2);
    expect(mockWebhooks).toEqual([delivered(sendA, 'ada@example.com'), delivered(sendA, 'bob@example.com')]);

    // The queue hands the failed records back; the count goes through this time.
    mockFailingCounts.clear();
    mockCounts.length = 0;
    const again = await handleSesEvents(batch([['m2', delivery(sendB, 'ada@example.com')], ['m3', delivery(sendB, 'bob@example.com')]]));
    expect(again).toEqual({ batchItemFailures: [] });
    expect(mockCounts).toEqual([[encodeSendRef(sendB), { delivered: 2 }]]);
  });

  test('a body that is not an SES event fails alone; an event of mail without our tag is acknowledged and counts nothing', async () => {
    const untagged = { ...delivery(sendA, 'ada@example.com'), detail: { eventType: 'Delivery', mail: { messageId: 'system', destination: ['ada@example.com'], tags: {} }, delivery: { recipients: ['ada@example.com'] } } };

    const response = await handleSesEvents(
      batch([
        ['m1', 'not json'],
        ['m2', { ...delivery(sendA, 'bob@example.com'), source: 'aws.s3' }],
        ['m3', untagged],
        ['m4', delivery(sendA, 'cy@example.com')],
      ]),
    );

    expect(response).toEqual({ batchItemFailures: [{ itemIdentifier: 'm1' }, { itemIdentifier: 'm2' }] });
    expect(mockCounts).toEqual([[encodeSendRef(sendA), { delivered: 1 }]]);
  });

  test('one EventBridge event invoked directly (the rule before the queue) is counted the same way, and throws when it fails', async () => {
    await expect(handleSesEvents(delivery(sendA, 'ada@example.com') as Parameters<typeof handleSesEvents>[0])).resolves.toBeUndefined();
    expect(mockCounts).toEqual([[encodeSendRef(sendA), { delivered: 1 }]]);

    mockFailingCounts.add(encodeSendRef(sendB));
    await expect(handleSesEvents(delivery(sendB, 'ada@example.com') as Parameters<typeof handleSesEvents>[0])).rejects.toThrow('throttled');
    expect([...mockHeld].some((id) => id.includes(sendB.utr))).toBe(false);
  });
});
