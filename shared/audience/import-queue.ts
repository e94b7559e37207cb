// The `imports` queue: a message names one import job; its consumer runs the job from its checkpoint
// (on the rows stored at the upload) and, when the Lambda's time runs short, puts the job back on the
// queue to continue there.
import { fitsInTime, remainingOf } from '../time-left';
import type { Context, SQSBatchResponse, SQSEvent } from 'aws-lambda';
import { loadImportRows } from '../contacts/import-file';
import { getImportJob } from '../contacts/import-jobs';
import { consumeRecords } from '../queue/consumer';
import { sendMessages } from '../queue/queue';
import { runImportJob } from './import-runner';

export interface ImportMessage {
  accountId: number;
  importId: number;
}

/** Time kept in hand beyond twice the longest chunk so far, for the checkpoint and the requeue. */
const reserveMs = 5_000;

export async function enqueueImport(message: ImportMessage): Promise<void> {
  await sendMessages('imports', [message]);
}

function parseImportMessage(body: string): ImportMessage {
  const value = JSON.parse(body) as Partial<ImportMessage>;
  if (!Number.isSafeInteger(value.accountId) || !Number.isSafeInteger(value.importId)) throw new Error(`Not an import message: ${body}`);
  return value as ImportMessage;
}

/** Run each job named in the batch; a failed one is redelivered (SQS partial batch response). */
export function handleImportEvent(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  return consumeRecords('imports', event, context, 'import job', async (record) => {
    const message = parseImportMessage(record.body);
    const queued = await getImportJob(message.accountId, message.importId);
    if (queued.status === 'completed' || queued.status === 'failed') return;
    const rows = await loadImportRows(message.accountId, message.importId, queued.total_rows);
    const fits = fitsInTime(remainingOf(context), reserveMs);
    const keepGoing = (longestChunkMs: number) => fits(2 * longestChunkMs);
    const job = await runImportJob(message.accountId, message.importId, rows, { keepGoing });
    if (job.status === 'running' || job.status === 'queued') await enqueueImport(message);
  });
}
