// Contact CSV import jobs: the job item (state, counts, checkpoint), the file's rows stored in pieces
// and the row errors per chunk. Every table access for them is here.
import { currentTime, isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { storeRows } from './import-file';
import { CONTACT_IMPORT, contactImportErrorsKey, contactImportErrorsPartition, contactImportKey } from './import-keys';
import { contactTypeKey } from '../contact-types/keys';
import { conditionHeld, getItem, putNewItem, queryAll, updateItem, type Item } from '../table/records';
import type { ImportRows } from './import-rows';
import { cancellationCodes, transactWrite, type TransactionAction } from '../table/transactions';

export type ImportStatus = 'queued' | 'running' | 'completed' | 'failed';

export interface RowError {
  row: number;
  messages: string[];
}

/** The import as `contacts/import-status` shows it. */
export interface ContactImport {
  id: number;
  status: ImportStatus;
  contact_type_id: number;
  total_rows: number;
  processed_rows: number;
  imported: number;
  updated: number;
  failed: number;
  errors: RowError[];
  created_at: string;
  updated_at: string;
}

/** The job's working state, beside what the status shows. */
export interface ImportJob extends Omit<ContactImport, 'errors'> {
  user_id: number;
  errors_stored: number;
  /** Set while a chunk is being written: its first row, and the emails it found new. */
  pending_start?: number;
  pending_fresh?: string[];
}

/** Most row errors kept (and shown) per import; `failed` still counts every refused row. */
export const maxStoredErrors = 1000;
/** Most messages one row error keeps: the bound on an error's size, whatever the number of custom fields. */
export const maxMessagesPerRow = 20;

/** A row's error, its messages cut to `maxMessagesPerRow`, the last then saying how many more there were. */
export function rowError(row: number, messages: readonly string[]): RowError {
  if (messages.length <= maxMessagesPerRow) return { row, messages: [...messages] };
  const kept = maxMessagesPerRow - 1;
  return { row, messages: [...messages.slice(0, kept), `And ${messages.length - kept} more errors in this row.`] };
}

/** Bytes of row errors (as JSON) per stored item: well inside DynamoDB's 400 KB item with its attribute overhead. */
const errorItemBytes = 256 * 1024;

/** A chunk's kept errors, in order, in pieces that each fit one item, with each piece's place among them. */
function errorPieces(errors: readonly RowError[]): { offset: number; errors: RowError[] }[] {
  const pieces: { offset: number; errors: RowError[] }[] = [];
  let bytes = 0;
  errors.forEach((error, index) => {
    const size = Buffer.byteLength(JSON.stringify(error));
    const last = pieces.at(-1);
    if (last && bytes + size <= errorItemBytes) {
      last.errors.push(error);
      bytes += size;
      return;
    }
    pieces.push({ offset: index, errors: [error] });
    bytes = size;
  });
  return pieces;
}
/** The file, the job and its errors are kept this long after the upload. */
const retentionSeconds = 7 * 24 * 60 * 60;

/** The chunk was checkpointed by another run of the job (a redelivered message): this run's writes repeated it. */
export class ChunkAlreadyDone extends Error {
  constructor() {
    super('The chunk was already checkpointed');
    this.name = 'ChunkAlreadyDone';
  }
}

/** The contact type went away during the import. */
export class ImportTypeGone extends Error {
  constructor() {
    super('The contact type of the import no longer exists');
    this.name = 'ImportTypeGone';
  }
}

function expiresAt(): number {
  return Math.floor(currentTime().getTime() / 1000) + retentionSeconds;
}

function toJob(item: Item): ImportJob {
  const number = (name: string) => Number(item[name] ?? 0);
  return {
    id: number('id'),
    user_id: number('user_id'),
    status: item.status as ImportStatus,
    contact_type_id: number('contact_type_id'),
    total_rows: number('total_rows'),
    processed_rows: number('processed_rows'),
    imported: number('imported'),
    updated: number('updated'),
    failed: number('failed'),
    errors_stored: number('errors_stored'),
    created_at: String(item.created_at),
    updated_at: String(item.updated_at),
    ...(item.pending_start !== undefined ? { pending_start: Number(item.pending_start), pending_fresh: (item.pending_fresh as string[] | undefined) ?? [] } : {}),
  };
}

/**
 * Create an import job for a file already checked (contact type, CSV, email column). With `file`
 * its rows are stored for a worker (`queued`); without, the caller runs it at once (`running`).
 */
export async function createImportJob(accountId: number, contactTypeId: number, totalRows: number, file?: ImportRows): Promise<ImportJob> {
  const id = await nextId(accountId, CONTACT_IMPORT);
  const pieces = file ? await storeRows(accountId, id, file, expiresAt()) : 0;
  const now = isoTimestamp();
  const job: ImportJob = {
    id,
    user_id: accountId,
    status: file ? 'queued' : 'running',
    contact_type_id: contactTypeId,
    total_rows: totalRows,
    processed_rows: 0,
    imported: 0,
    updated: 0,
    failed: 0,
    errors_stored: 0,
    created_at: now,
    updated_at: now,
  };
  const created = await putNewItem({ ...contactImportKey(accountId, id), entity: CONTACT_IMPORT, ...job, file_pieces: pieces, expires_at: expiresAt() });
  if (!created) throw new Error(`Contact import id ${id} of account ${accountId} was already taken`);
  return job;
}

export async function getImportJob(accountId: number, id: number): Promise<ImportJob> {
  const item = await getItem(contactImportKey(accountId, id));
  if (!item) throw new RecordNotFound(CONTACT_IMPORT, id);
  return toJob(item);
}

/** The job as the status shows it, with its stored row errors in row order. */
export async function getContactImport(accountId: number, id: number): Promise<ContactImport> {
  const { user_id: _user, errors_stored: _stored, pending_start: _start, pending_fresh: _fresh, ...job } = await getImportJob(accountId, id);
  const errorItems = await queryAll({ partition: contactImportErrorsPartition(accountId, id) });
  const errors = errorItems.flatMap((item) => item.errors as RowError[]).slice(0, maxStoredErrors);
  return { ...job, errors };
}

export async function markImportStatus(accountId: number, id: number, status: ImportStatus): Promise<void> {
  await updateItem({
    Key: contactImportKey(accountId, id),
    UpdateExpression: 'SET #status = :status, updated_at = :now',
    ConditionExpression: 'attribute_exists(pk)',
    ExpressionAttributeNames: { '#status': 'status' },
    ExpressionAttributeValues: { ':status': status, ':now': isoTimestamp() },
  });
}

/**
 * Record which emails of the chunk at `start` are new, before it is written. The first record for
 * a chunk stands: a replay after a crash gets the emails the first run found new (which it may have
 * created since), so its counts come out the same (`first` false). ChunkAlreadyDone when the chunk
 * is checkpointed.
 */
export async function claimChunk(accountId: number, id: number, start: number, freshEmails: string[]): Promise<{ fresh: Set<string>; first: boolean }> {
  const claimed = await conditionHeld(
    updateItem({
      Key: contactImportKey(accountId, id),
      UpdateExpression: 'SET pending_start = :start, pending_fresh = :fresh',
      ConditionExpression: 'processed_rows = :start AND (attribute_not_exists(pending_start) OR pending_start <> :start)',
      ExpressionAttributeValues: { ':start': start, ':fresh': freshEmails },
    }),
  );
  if (claimed) return { fresh: new Set(freshEmails), first: true };
  const job = await getImportJob(accountId, id);
  if (job.processed_rows !== start || job.pending_start !== start) throw new ChunkAlreadyDone();
  return { fresh: new Set(job.pending_fresh), first: false };
}

export interface ChunkOutcome {
  start: number;
  end: number;
  imported: number;
  updated: number;
  errors: RowError[];
}

/**
 * Move the job past one chunk: its counts, its row errors (up to the cap) and the type's contact
 * count in ONE transaction, conditional on the job still being at the chunk's start, so a chunk is
 * counted once however often it is written. ChunkAlreadyDone when another run got there first.
 * With `nextFresh` (the next chunk is looked up and this run goes on to write it) the same write
 * records the next chunk's claim, as `claimChunk` would: the next chunk then writes at once.
 */
export async function checkpointChunk(job: ImportJob, chunk: ChunkOutcome, nextFresh?: string[]): Promise<ImportJob> {
  const accountId = job.user_id;
  const kept = chunk.errors.slice(0, Math.max(0, maxStoredErrors - job.errors_stored));
  const done = chunk.end >= job.total_rows;
  const claimsNext = nextFresh !== undefined && !done;
  const now = isoTimestamp();
  const actions: TransactionAction[] = [
    {
      Update: {
        Key: contactImportKey(accountId, job.id),
        UpdateExpression: claimsNext
          ? 'SET processed_rows = :end, #status = :status, updated_at = :now, pending_start = :end, pending_fresh = :fresh ADD #imported :imported, #updated :updated, #failed :failed, errors_stored :kept'
          : 'SET processed_rows = :end, #status = :status, updated_at = :now REMOVE pending_start, pending_fresh ADD #imported :imported, #updated :updated, #failed :failed, errors_stored :kept',
        ConditionExpression: 'processed_rows = :start',
        ExpressionAttributeNames: { '#status': 'status', '#imported': 'imported', '#updated': 'updated', '#failed': 'failed' },
        ExpressionAttributeValues: {
          ':end': chunk.end,
          ':start': chunk.start,
          ':status': done ? 'completed' : 'running',
          ':now': now,
          ':imported': chunk.imported,
          ':updated': chunk.updated,
          ':failed': chunk.errors.length,
          ':kept': kept.length,
          ...(claimsNext ? { ':fresh': nextFresh } : {}),
        },
      },
    },
  ];
  // A chunk's errors go in as many items as they need. Each is keyed by the chunk's start plus its
  // place among the chunk's errors, under the next chunk's start: the status reads them in row order.
  for (const piece of errorPieces(kept)) {
    const key = contactImportErrorsKey(accountId, job.id, chunk.start + piece.offset);
    actions.push({ Put: { Item: { ...key, entity: `${CONTACT_IMPORT}-errors`, errors: piece.errors, expires_at: expiresAt() } } });
  }
  if (chunk.imported > 0) {
    actions.push({
      Update: {
        Key: contactTypeKey(accountId, job.contact_type_id),
        UpdateExpression: 'ADD contacts_count :count',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':count': chunk.imported },
      },
    });
  }
  try {
    await transactWrite(actions);
  } catch (error) {
    const codes = cancellationCodes(error);
    if (!codes) throw error;
    if (codes[0] === 'ConditionalCheckFailed') throw new ChunkAlreadyDone();
    if (codes[actions.length - 1] === 'ConditionalCheckFailed' && chunk.imported > 0) throw new ImportTypeGone();
    throw error;
  }
  const { pending_start: _start, pending_fresh: _fresh, ...rest } = job;
  return {
    ...rest,
    ...(claimsNext ? { pending_start: chunk.end, pending_fresh: nextFresh } : {}),
    status: done ? 'completed' : 'running',
    processed_rows: chunk.end,
    imported: job.imported + chunk.imported,
    updated: job.updated + chunk.updated,
    failed: job.failed + chunk.errors.length,
    errors_stored: job.errors_stored + kept.length,
    updated_at: now,
  };
}
