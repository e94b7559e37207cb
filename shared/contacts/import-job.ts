// Running a contact import job: the file's rows in chunks through the one importer, each chunk
// checkpointed with its counts, so a job stopped anywhere (time limit, crash) continues where it was.
// The next chunk's rows are read and looked up while the current chunk writes (a pipeline of two),
// so the store is not left idle during the reads; writes and checkpoints stay one chunk at a time.
import type { CsvTable } from '../csv/read-csv';
import { importContactRows } from './contact-service';
import { ChunkAlreadyDone, checkpointChunk, claimChunk, getImportJob, ImportTypeGone, markImportStatus, type ImportJob, type RowError } from './import-jobs';
import { lookUpImport, type ImportLookup, type ImportRow } from './import-writes';
import { ContactTypeUnavailable } from './repository';
import { csvRowReader } from './csv-rows';

/** Rows per chunk: one checkpoint per chunk, and a chunk's writes fit comfortably in a Lambda's remaining time. */
export const importChunkRows = 500;

export interface RunOptions {
  /** Asked before each chunk with the longest chunk so far (ms): false stops the run with the job checkpointed. */
  keepGoing?: (longestChunkMs: number) => boolean;
  /** Called after a chunk's contacts are written and before its checkpoint (where a crash would hurt most). */
  afterChunkWritten?: (start: number) => Promise<void>;
}

/** A chunk's rows as read from the file, and what the importer looked up for its valid ones. */
interface ChunkRead {
  start: number;
  valid: ImportRow[];
  errors: RowError[];
  lookup: ImportLookup;
}

/** Run a job from its checkpoint until it completes, fails or `keepGoing` says stop. Returns the job as it then is. */
export async function runImportJob(accountId: number, importId: number, table: CsvTable, options: RunOptions = {}): Promise<ImportJob> {
  let job = await getImportJob(accountId, importId);
  if (job.status === 'completed' || job.status === 'failed') return job;
  if (job.status === 'queued') await markImportStatus(accountId, importId, 'running');
  const reader = await csvRowReader(accountId, job.contact_type_id, table);
  const contactTypeId = job.contact_type_id;
  const readChunk = async (start: number): Promise<ChunkRead> => {
    const { valid, errors } = await reader.readRange(start, Math.min(job.total_rows, start + importChunkRows));
    return { start, valid, errors, lookup: await lookUpImport(accountId, contactTypeId, valid) };
  };
  /** The next chunk, read while the current one writes. Its lookup may be stale by the time it writes: the conditional writes decide. */
  let ahead: Promise<ChunkRead> | undefined;
  let longest = 0;
  while (job.processed_rows < job.total_rows || job.status !== 'completed') {
    if (options.keepGoing && !options.keepGoing(longest)) return job;
    const started = Date.now();
    const start = job.processed_rows;
    const end = Math.min(job.total_rows, start + importChunkRows);
    // A read ahead of another chunk (this run found the chunk done by another) is settled first, so
    // the reader never reads two ranges at once.
    const early = await ahead?.catch(() => undefined);
    const { valid, errors, lookup } = early?.start === start ? early : await readChunk(start);
    ahead = undefined;
    if (end < job.total_rows) {
      ahead = readChunk(end);
      // Awaited with the next chunk; a run that stops first (time limit, an error) leaves it unread.
      ahead.catch(() => undefined);
    }
    let claim = { fresh: new Set<string>(), first: true };
    try {
      const result = await importContactRows(accountId, contactTypeId, valid, reader.columns, {
        deferCount: true,
        lookup,
        onClassified: async (emails) => {
          claim = await claimChunk(accountId, importId, start, emails);
        },
      });
      await options.afterChunkWritten?.(start);
      // The first run counts what it created: a row found new but added by another request before
      // it was written (more likely with the lookup made a chunk ahead) was updated instead. A replay
      // sees its own earlier creations as existing contacts, yet they are still this import's new
      // contacts: it counts from the emails new when the chunk was first claimed.
      const refused = new Set(result.refused.map((row) => row.line));
      const imported = claim.first ? result.imported : valid.filter((row) => claim.fresh.has(row.fields.email.toLowerCase()) && !refused.has(row.line)).length;
      const rowErrors = [...errors, ...result.refused.map((row) => ({ row: row.line, messages: [row.message] }))].sort((a, b) => a.row - b.row);
      job = await checkpointChunk(job, { start, end, imported, updated: valid.length - imported - refused.size, errors: rowErrors });
    } catch (error) {
      if (error instanceof ChunkAlreadyDone) {
        job = await getImportJob(accountId, importId);
        continue;
      }
      if (error instanceof ContactTypeUnavailable || error instanceof ImportTypeGone) {
        await markImportStatus(accountId, importId, 'failed');
        return getImportJob(accountId, importId);
      }
      throw error;
    }
    longest = Math.max(longest, Date.now() - started);
  }
  return job;
}
