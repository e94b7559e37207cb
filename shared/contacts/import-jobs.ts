// Contact import jobs (a CSV upload's, a bulk JSON upsert's): the job item (state, counts,
// checkpoint), the rows stored in pieces and the row errors per chunk. Every table access for them is here.
import { currentTime, isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { storeRows } from './import-file';
import { CONTACT_IMPORT, contactImportErrorsKey, contactImportErrorsPartition, contactImportKey, type ImportKind } from './import-keys';
import { contactTypeKey } from '../contact-types/keys';
import { conditionHeld, getItem, putNewItem, queryAll, updateItem, type Item } from '../table/records';
import type { ImportRows } from './import-rows';
import { cancellationCodes, transactWrite, type TransactionAction } from '../table/transactions';
import type { Key } from '../table/keys';

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
  kind: ImportKind;
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
function errorPieces<E>(errors: readonly E[]): { offset: number; errors: E[] }[] {
  const pieces: { offset: number; errors: E[] }[] = [];
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
    kind: item.entity as ImportKind,
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
  const { job, item } = await newImport(accountId, CONTACT_IMPORT, id, contactTypeId, totalRows, file);
  const created = await putNewItem(item);
  if (!created) throw new Error(`Contact import id ${id} of account ${accountId} was already taken`);
  return job;
}

/**
 * A queued import of `kind` under an id given by the caller (a bulk upsert's is its background job's),
 * its rows stored first: the Put that creates it, for the transaction that starts the job.
 */
export async function newImportPut(accountId: number, kind: ImportKind, id: number, contactTypeId: number, file: ImportRows): Promise<TransactionAction> {
  const { item } = await newImport(accountId, kind, id, contactTypeId, file.count, file);
  return { Put: { Item: item, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/** The job and its item; with `file` its rows are stored first. */
async function newImport(accountId: number, kind: ImportKind, id: number, contactTypeId: number, totalRows: number, file?: ImportRows): Promise<{ job: ImportJob; item: Item & Key }> {
  const pieces = file ? await storeRows(accountId, id, file, expiresAt(), kind) : 0;
  const now = isoTimestamp();
  const job: ImportJob = {
    id,
    kind,
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
  const { kind: _kind, ...state } = job;
  return { job, item: { ...contactImportKey(accountId, id, kind), entity: kind, ...state, file_pieces: pieces, expires_at: expiresAt() } };
}

export async function getImportJob(accountId: number, id: number, kind: ImportKind = CONTACT_IMPORT): Promise<ImportJob> {
  const item = await getItem(contactImportKey(accountId, id, kind));
  if (!item) throw new RecordNotFound(kind, id);
  return toJob(item);
}

/** An import's stored row errors in row order (at most `maxStoredErrors`), in the shape its kind keeps them. */
export async function getImportErrors<E = RowError>(accountId: number, id: number, kind: ImportKind = CONTACT_IMPORT): Promise<E[]> {
  const errorItems = await queryAll({ partition: contactImportErrorsPartition(accountId, id, kind) });
  return errorItems.flatMap((item) => item.errors as E[]).slice(0, maxStoredErrors);
}

/** The job as the status shows it, with its stored row errors in row order. */
export async function getContactImport(accountId: number, id: number): Promise<ContactImport> {
  const { kind: _kind, user_id: _user, errors_stored: _stored, pending_start: _start, pending_fresh: _fresh, ...job } = await getImportJob(accountId, id);
  return { ...job, errors: await getImportErrors(accountId, id) };
}

export async function markImportStatus(accountId: number, id: number, status: ImportStatus, kind: ImportKind = CONTACT_IMPORT): Promise<void> {
  await updateItem({
    Key: contactImportKey(accountId, id, kind),
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
export async function claimChunk(accountId: number, id: number, start: number, freshEmails: string[], kind: ImportKind = CONTACT_IMPORT): Promise<{ fresh: Set<string>; first: boolean }> {
  const claimed = await conditionHeld(
    updateItem({
      Key: contactImportKey(accountId, id, kind),
      UpdateExpression: 'SET pending_start = :start, pending_fresh = :fresh',
      ConditionExpression: 'processed_rows = :start AND (attribute_not_exists(pending_start) OR pending_start <> :start)',
      ExpressionAttributeValues: { ':start': start, ':fresh': freshEmails },
    }),
  );
  if (claimed) return { fresh: new Set(freshEmails), first: true };
  const job = await getImportJob(accountId, id, kind);
  if (job.processed_rows !== start || job.pending_start !== start) throw new ChunkAlreadyDone();
  return { fresh: new Set(job.pending_fresh), first: false };
}

/** A chunk's counts and its row errors, in the shape its kind of import keeps them (a CSV's: RowError). */
export interface ChunkOutcome<E = RowError> {
  start: number;
  end: number;
  imported: number;
  updated: number;
  errors: E[];
}

/**
 * Move the job past one chunk: its counts, its row errors (up to the cap) and the type's contact
 * count in ONE transaction, conditional on the job still being at the chunk's start, so a chunk is
 * counted once however often it is written. ChunkAlreadyDone when another run got there first.
 * With `nextFresh` (the next chunk is looked up and this run goes on to write it) the same write
 * records the next chunk's claim, as `claimChunk` would: the next chunk then writes at once.
 */
export async function checkpointChunk<E>(job: ImportJob, chunk: ChunkOutcome<E>, nextFresh?: string[]): Promise<ImportJob> {
  const accountId = job.user_id;
  const kept = chunk.errors.slice(0, Math.max(0, maxStoredErrors - job.errors_stored));
  const done = chunk.end >= job.total_rows;
  const claimsNext = nextFresh !== undefined && !done;
  const now = isoTimestamp();
  const actions: TransactionAction[] = [
    {
      Update: {
        Key: contactImportKey(accountId, job.id, job.kind),
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
    const key = contactImportErrorsKey(accountId, job.id, chunk.start + piece.offset, job.kind);
    actions.push({ Put: { Item: { ...key, entity: `${job.kind}-errors`, errors: piece.errors, expires_at: expiresAt() } } });
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
