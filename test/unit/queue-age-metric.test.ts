// Each queue's consumer records how long its oldest message waited under that queue's own metric:
// the delivery queue's age must not mix with the import queue's.
import type { SQSEvent } from 'aws-lambda';
import { handler as importHandler } from '../../functions/contact-import/handler';
import { handler as deliverHandler } from '../../functions/send-deliver/handler';
import { resetConfig } from '../../shared/config';

function sqsEvent(queue: string, body: string, waitedSeconds: number): SQSEvent {
  return {
    Records: [
      {
        messageId: 'm-1',
        receiptHandle: 'r-1',
        body,
        attributes: { ApproximateReceiveCount: '1', SentTimestamp: String(Date.now() - waitedSeconds * 1000), SenderId: 's', ApproximateFirstReceiveTimestamp: String(Date.now()) },
        messageAttributes: {},
        md5OfBody: '',
        eventSource: 'aws:sqs',
        eventSourceARN: `arn:aws:sqs:us-east-1:000000000000:${queue}`,
        awsRegion: 'us-east-1',
      },
    ],
  };
}

/** The metric names of the EMF lines the handler writes. */
async function metricsWritten(run: () => Promise<unknown>): Promise<Record<string, number>> {
  const lines: string[] = [];
  const write = jest.spyOn(process.stdout, 'write').mockImplementation((chunk: string | Uint8Array) => {
    lines.push(String(chunk));
    return true;
  });
  try {
    await run();
  } finally {
    write.mockRestore();
  }
  const metrics: Record<string, number> = {};
  for (const line of lines.flatMap((text) => text.split('\n')).filter((text) => text.includes('"_aws"'))) {
    const emf = JSON.parse(line) as { _aws: { CloudWatchMetrics: { Metrics: { Name: string }[] }[] } } & Record<string, unknown>;
    for (const { Name } of emf._aws.CloudWatchMetrics.flatMap((directive) => directive.Metrics)) metrics[Name] = emf[Name] as number;
  }
  return metrics;
}

describe('queue age metrics', () => {
  const saved = { ...process.env };

  beforeEach(() => {
    Object.assign(process.env, { APP_RUNTIME: 'aws', TABLE_NAME: 'unused', AWS_REGION: 'us-east-1', LOG_LEVEL: 'silent', TOKEN_SIGNING_KEY: 'test' });
    resetConfig();
  });

  afterEach(() => {
    process.env = { ...saved };
    resetConfig();
  });

  test('an import message is measured as the import queue, not the delivery queue', async () => {
    const metrics = await metricsWritten(() => importHandler(sqsEvent('imports', 'not an import message', 30)));

    expect(Object.keys(metrics)).toEqual(['ImportQueueAgeSeconds']);
    expect(metrics.ImportQueueAgeSeconds).toBeGreaterThanOrEqual(29);
  });

  test('a delivery message is measured as the delivery queue', async () => {
    const metrics = await metricsWritten(() => deliverHandler(sqsEvent('deliveries', 'not a delivery message', 12)));

    expect(Object.keys(metrics)).toEqual(['DeliveryQueueAgeSeconds']);
    expect(metrics.DeliveryQueueAgeSeconds).toBeGreaterThanOrEqual(11);
  });
});
