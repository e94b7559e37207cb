// Published on-demand prices the bench turns measured use into money with: us-east-1, as AWS's
// pricing pages give them (DynamoDB's after its 2024-11-01 on-demand reduction), read 2026-11-28.
// EventBridge adds nothing: events of AWS services (SES's, S3's) on the default bus are free, and so
// is their delivery to targets.
// SES's own price ($0.10 per 1,000 mails) is left out: the cost is what this service adds to it.
import { functionArchitecture } from '../../infra/stack/lambda-bundling';

export const pricesAsOf = { region: 'us-east-1', read: '2026-11-28' } as const;

export const prices = {
  /** DynamoDB on-demand, per write request unit (1 KB of an item written; twice that in a transaction). */
  dynamoWriteUnit: 0.625 / 1e6,
  /** DynamoDB on-demand, per read request unit (4 KB read strongly consistent; half that eventually). */
  dynamoReadUnit: 0.125 / 1e6,
  /** Lambda, per GB-second of billed duration, by the architecture the functions are deployed on. */
  lambdaGbSecond: { arm64: 0.0000133334, x86_64: 0.0000166667 },
  /** Lambda, per request. */
  lambdaRequest: 0.2 / 1e6,
  /** SQS standard queue, per request (a batch of up to 10 messages is one request). */
  sqsRequest: 0.4 / 1e6,
  /** Amazon Data Firehose Direct PUT ingestion, per GB, each record rounded up to `firehoseRecordBytes`. */
  firehoseIngestionGb: 0.029,
  /** The size Firehose rounds each ingested record up to (a multiple of 5 KB). */
  firehoseRecordBytes: 5 * 1024,
  /** S3 Standard, per PUT request (the stream's object). */
  s3Put: 0.005 / 1000,
  /** S3 Standard, per GET request (ses-events reading the object). */
  s3Get: 0.0004 / 1000,
} as const;

/** The bytes Firehose bills for records of these sizes: each rounded up to the next 5 KB. */
export function firehoseBilledBytes(recordBytes: readonly number[]): number {
  return recordBytes.reduce((sum, bytes) => sum + Math.max(1, Math.ceil(bytes / prices.firehoseRecordBytes)) * prices.firehoseRecordBytes, 0);
}

export interface MeasuredUse {
  mails: number;
  writeUnits: number;
  readUnits: number;
  /** Per function: invocations, their summed wall time and the function's memory. */
  invocations: { name: string; invocations: number; milliseconds: number; memoryMb: number }[];
  sqsRequests: number;
  /** Bytes Firehose bills for the records it took (firehoseBilledBytes). */
  firehoseBilledBytes: number;
  /** S3 PUTs (one per object the stream wrote) and GETs (one per object read). */
  s3Puts: number;
  s3Gets: number;
}

export interface CostPerMillion {
  dynamodb_writes: number;
  dynamodb_reads: number;
  lambda: number;
  sqs: number;
  firehose: number;
  s3: number;
  total: number;
}

/** The GB-second price of the architecture the stack deploys every function on (infra/stack/lambda-bundling.ts). */
const lambdaGbSecond = prices.lambdaGbSecond[functionArchitecture.name === 'arm64' ? 'arm64' : 'x86_64'];

const cents = (dollars: number) => Math.round(dollars * 100) / 100;

/** Dollars per million mails beyond SES's own price, from what one measured send used. */
export function costPerMillion(use: MeasuredUse): CostPerMillion {
  const scale = 1e6 / use.mails;
  const lambda = use.invocations.reduce((sum, fn) => sum + (fn.milliseconds / 1000) * (fn.memoryMb / 1024) * lambdaGbSecond + fn.invocations * prices.lambdaRequest, 0);
  const parts = {
    dynamodb_writes: use.writeUnits * prices.dynamoWriteUnit * scale,
    dynamodb_reads: use.readUnits * prices.dynamoReadUnit * scale,
    lambda: lambda * scale,
    sqs: use.sqsRequests * prices.sqsRequest * scale,
    firehose: (use.firehoseBilledBytes / 1024 ** 3) * prices.firehoseIngestionGb * scale,
    s3: (use.s3Puts * prices.s3Put + use.s3Gets * prices.s3Get) * scale,
  };
  return {
    dynamodb_writes: cents(parts.dynamodb_writes),
    dynamodb_reads: cents(parts.dynamodb_reads),
    lambda: cents(parts.lambda),
    sqs: cents(parts.sqs),
    firehose: cents(parts.firehose),
    s3: cents(parts.s3),
    total: cents(Object.values(parts).reduce((sum, part) => sum + part, 0)),
  };
}
