// What a metered run on the local stack used, priced: its functions' invocations at their deployed
// memory, the queue requests their batches took, the delivery stream's objects and records found under
// the stack's object store, and DynamoDB's units from the capacity meter. Shared by the capacity benches.
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import type { InvocationTally } from '../../infra/local/function-modules';
import { functionMemoryMb } from '../../infra/stack/service-functions';
import { queueConsumers } from '../../shared/queue/queues';
import type { CapacityMeter } from './capacity-meter';
import { costPerMillion, firehoseBilledBytes, type CostPerMillion } from './prices';

/** The delivery stream's objects under the local object store (every bucket): how many, and each record's bytes. */
function archivedObjects(root: string): { objects: number; recordBytes: number[] } {
  const files = readdirSync(root, { recursive: true, withFileTypes: true }).filter((entry) => entry.isFile());
  const recordBytes = files.flatMap((file) => readFileSync(join(file.parentPath, file.name), 'utf8').split('\n').filter((line) => line !== '').map((line) => Buffer.byteLength(line)));
  return { objects: files.length, recordBytes };
}

export interface RunCost {
  cost_per_million_mails_usd: CostPerMillion;
  functions: { name: string; invocations: number; milliseconds: number; memoryMb: number }[];
  sqs_requests: number;
  delivery_stream: { objects: number; records: number; record_bytes_mean: number };
}

/**
 * Price a run of `mails` mails. Each function's invocations, their wall time (overlapping ones apart,
 * as separate containers would be billed) and its deployed memory; SQS requests at most one
 * SendMessageBatch, one ReceiveMessage and one DeleteMessageBatch per batch a queue consumer took. The
 * ses-events queue is sent to by EventBridge, one SendMessage per message: one per object of the
 * delivery stream (every mail here is delivered, so no bounce or complaint goes straight to the
 * queue). Each object is one S3 PUT (the stream's) and one GET (ses-events'); each record billed by
 * Firehose rounded up to 5 KB.
 */
export function priceRun(meter: CapacityMeter, invocations: ReadonlyMap<string, InvocationTally>, dataDir: string, mails: number): RunCost {
  const functions = [...invocations].map(([name, tally]) => ({ name, invocations: tally.invocations, milliseconds: Math.round(tally.milliseconds), memoryMb: functionMemoryMb(name) }));
  const archive = archivedObjects(join(dataDir, 'objects'));
  const consumers = new Set(Object.values(queueConsumers));
  const sqsRequests = functions
    .filter((fn) => consumers.has(fn.name))
    .reduce((sum, fn) => sum + (fn.name === queueConsumers['ses-events'] ? 2 * fn.invocations + archive.objects : 3 * fn.invocations), 0);
  const totals = meter.totals();
  const cost = costPerMillion({
    mails,
    writeUnits: totals.writeUnits,
    readUnits: totals.readUnits,
    invocations: functions,
    sqsRequests,
    firehoseBilledBytes: firehoseBilledBytes(archive.recordBytes),
    s3Puts: archive.objects,
    s3Gets: archive.objects,
  });
  const meanBytes = Math.round(archive.recordBytes.reduce((sum, bytes) => sum + bytes, 0) / Math.max(1, archive.recordBytes.length));
  return { cost_per_million_mails_usd: cost, functions, sqs_requests: sqsRequests, delivery_stream: { objects: archive.objects, records: archive.recordBytes.length, record_bytes_mean: meanBytes } };
}
