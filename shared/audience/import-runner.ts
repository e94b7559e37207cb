// Running a contact import job (a CSV file's, a bulk JSON upsert's): the rows in chunks through the one importer, each chunk
// checkpointed with its counts, so a job stopped anywhere (time limit, crash) continues where it was.
// The next chunk's rows are read and looked up while the current chunk writes (a pipeline of two),
// so the store is not left idle during the reads; writes and checkpoints stay one chunk at a time.
// A chunk's checkpoint also records the next chunk's claim (the emails it will create), so between
// two chunks' writes there is one write of the job's item, not two.
import { importContactRows } from './contact-service';
import { ChunkAlreadyDone, checkpointChunk, claimChunk, getImportJob, ImportTypeGone, markImportStatus, type ImportJob, type RowError } from '../contacts/import-jobs';
import { freshEmails, lookUpImport, type ImportLookup, type ImportRow } from './import-lookup';
import type { RefusedRow } from './import-writes';
import { ContactTypeUnavailable } from '../contacts/errors';
import { csvRowReader } from './csv-rows';
import type { ImportRows } from '../contacts/import-rows';
import { CONTACT_IMPORT, type ImportKind } from '../contacts/import-keys';
import type { fieldsByName } from '../contacts/items';

/** Rows per chunk: one checkpoint per chunk, and a chunk's writes fit comfortably in a Lambda's remaining time. */
export const importChunkRows = 500;

/** How an import reads its rows and words its row errors: a CSV file's (csv-rows.ts) or a JSON upsert's (json-rows.ts). */
export interface RowSource<E> {
  /** The standard columns the rows have: columns they lack keep their values on update (a row may say for itself: ImportRow.given). */
  columns: ReadonlySet<string>;
  /** The account's custom fields the rows are read with, by name (the import writes with the same). */
  customFields: ReturnType<typeof fieldsByName>;
  /** Rows `start` (inclusive) to `end` (exclusive): the valid ones to write and the refused ones. */
  readRange(start: number, end: number): Promise<{ valid: ImportRow[]; errors: E[] }>;
  /** A valid row the writes refused, as this source words a row error. */
  refusedError(row: ImportRow, refused: RefusedRow): E;
  /** The row (line or index) an error is about, to keep the errors in row order. */
  lineOf(error: E): number;
}

/** The source of a CSV import: a row error is `{row, messages}`. */
async function csvSource(accountId: number, contactTypeId: number, file: ImportRows): Promise<RowSource<RowError>> {
  const reader = await csvRowReader(accountId, contactTypeId, file);
  return { ...reader, refusedError: (_row, refused) => ({ row: refused.line, messages: [refused.message] }), lineOf: (error) => error.row };
}

/** Makes the row source of one run of a job. */
export type SourceOf<E> = (accountId: number, contactTypeId: number, file: ImportRows) => Promise<RowSource<E>>;

export interface RunOptions {
  /** Which kind of import the job is (default: a CSV upload's). */
  kind?: ImportKind;
  /** Called after each chunk's checkpoint with the job as it then is. */
  afterCheckpoint?: (job: ImportJob) => Promise<void>;
  /** Asked before each chunk with the longest chunk so far (ms): false stops the run with the job checkpointed. */
  keepGoing?: (longestChunkMs: number) => boolean;
  /** Called after a chunk's contacts are written and before its checkpoint (where a crash would hurt most). */
  afterChunkWritten?: (start: number) => Promise<void>;
}

/** A chunk's rows as read from the file, and what the importer looked up for its valid ones. */
interface ChunkRead<E> {
  start: number;
  valid: ImportRow[];
  errors: E[];
  lookup: ImportLookup;
}

/** Run a job from its checkpoint until it completes, fails or `keepGoing` says stop. Returns the job as it then is. */
export function runImportJob(accountId: number, importId: number, file: ImportRows, options: RunOptions = {}): Promise<ImportJob> {
  return runImport(accountId, importId, file, csvSource, options);
}

/** Run a job of any kind, its rows read by `source`: as runImportJob. */
export async function runImport<E>(accountId: number, importId: number, file: ImportRows, source: SourceOf<E>, options: RunOptions = {}): Promise<ImportJob> {
  const kind = options.kind ?? CONTACT_IMPORT;
  let job = await getImportJob(accountId, importId, kind);
  if (job.status === 'completed' || job.status === 'failed') return job;
  const [reader] = await Promise.all([source(accountId, job.contact_type_id, file), job.status === 'queued' ? markImportStatus(accountId, importId, 'running', kind) : undefined]);
  const contactTypeId = job.contact_type_id;
  const readChunk = async (start: number): Promise<ChunkRead<E>> => {
    const { valid, errors } = await reader.readRange(start, Math.min(job.total_rows, start + importChunkRows));
    return { start, valid, errors, lookup: await lookUpImport(accountId, contactTypeId, valid, reader.customFields) };
  };
  /** The next chunk, read while the current one writes. Its lookup may be stale by the time it writes: the conditional writes decide. */
  let ahead: Promise<ChunkRead<E>> | undefined;
  /** The chunk whose claim this run recorded with the checkpoint before it, from the lookup in `ahead`. */
  let claimedWithCheckpoint: number | undefined;
  let longest = 0;
  /**
   * The emails the next chunk will create, when this run goes on to write it and has looked it up:
   * the checkpoint records them as the next chunk's claim. Undefined otherwise (a run about to stop
   * leaves no claim, so the next run's counts are a first run's).
   */
  const nextClaim = async (next: number, spentMs: number): Promise<string[] | undefined> => {
    if (!ahead || (options.keepGoing && !options.keepGoing(Math.max(longest, spentMs)))) return undefined;
    const read = await ahead.catch(() => undefined);
    return read?.start === next && read.lookup.open ? freshEmails(read.lookup) : undefined;
  };
  while (job.processed_rows < job.total_rows || job.status !== 'completed') {
    if (options.keepGoing && !options.keepGoing(longest)) return job;
    const started = Date.now();
    const start = job.processed_rows;
    const end = Math.min(job.total_rows, start + importChunkRows);
    // A read ahead of another chunk (this run found the chunk done by another) is settled first, so
    // the reader never reads two ranges at once.
    const early = await ahead?.catch(() => undefined);
    const { valid, errors, lookup } = early?.start === start ? early : await readChunk(start);
    // Claimed with the last checkpoint from this very lookup: this run is the chunk's first.
    const claimed = claimedWithCheckpoint === start && early?.start === start && job.pending_start === start;
    claimedWithCheckpoint = undefined;
    ahead = undefined;
    let claim = { fresh: new Set<string>(claimed ? job.pending_fresh : []), first: true };
    try {
      const result = await importContactRows(accountId, contactTypeId, valid, reader.columns, {
        deferCount: true,
        lookup,
        onClassified: async (emails) => {
          if (!claimed) claim = await claimChunk(accountId, importId, start, emails, kind);
          // The next chunk is read once this one's claim is recorded (its reads would otherwise
          // queue before the claim) and its writes are sent (the next turn of the event loop), while
          // this one writes.
          if (end < job.total_rows) {
            ahead = new Promise((resume) => setImmediate(resume)).then(() => readChunk(end));
            // Awaited with the next chunk; a run that stops first (time limit, an error) leaves it unread.
            ahead.catch(() => undefined);
          }
        },
      });
      await options.afterChunkWritten?.(start);
      // The first run counts what it created: a row found new but added by another request before
      // it was written (more likely with the lookup made a chunk ahead) was updated instead. A replay
      // sees its own earlier creations as existing contacts, yet they are still this import's new
      // contacts: it counts from the emails new when the chunk was first claimed.
      const refused = new Set(result.refused.map((row) => row.line));
      const imported = claim.first ? result.imported : valid.filter((row) => claim.fresh.has(row.fields.email.toLowerCase()) && !refused.has(row.line)).length;
      const byLine = new Map(valid.map((row) => [row.line, row]));
      const rowErrors = [...errors, ...result.refused.map((row) => reader.refusedError(byLine.get(row.line) as ImportRow, row))].sort((a, b) => reader.lineOf(a) - reader.lineOf(b));
      const nextFresh = await nextClaim(end, Date.now() - started);
      job = await checkpointChunk(job, { start, end, imported, updated: valid.length - imported - refused.size, errors: rowErrors }, nextFresh);
      if (nextFresh) claimedWithCheckpoint = end;
      await options.afterCheckpoint?.(job);
    } catch (error) {
      if (error instanceof ChunkAlreadyDone) {
        job = await getImportJob(accountId, importId, kind);
        continue;
      }
      if (error instanceof ContactTypeUnavailable || error instanceof ImportTypeGone) {
        await markImportStatus(accountId, importId, 'failed', kind);
        return getImportJob(accountId, importId, kind);
      }
      throw error;
    }
    longest = Math.max(longest, Date.now() - started);
  }
  return job;
}
