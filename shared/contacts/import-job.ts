// Running a contact import job: the file's rows in chunks through the one importer, each chunk
// checkpointed with its counts, so a job stopped anywhere (time limit, crash) continues where it was.
import type { CsvTable } from '../csv/read-csv';
import { importContactRows } from './contact-service';
import { ChunkAlreadyDone, checkpointChunk, claimChunk, getImportJob, ImportTypeGone, markImportStatus, type ImportJob } from './import-jobs';
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

/** Run a job from its checkpoint until it completes, fails or `keepGoing` says stop. Returns the job as it then is. */
export async function runImportJob(accountId: number, importId: number, table: CsvTable, options: RunOptions = {}): Promise<ImportJob> {
  let job = await getImportJob(accountId, importId);
  if (job.status === 'completed' || job.status === 'failed') return job;
  if (job.status === 'queued') await markImportStatus(accountId, importId, 'running');
  const reader = await csvRowReader(accountId, job.contact_type_id, table);
  let longest = 0;
  while (job.processed_rows < job.total_rows || job.status !== 'completed') {
    if (options.keepGoing && !options.keepGoing(longest)) return job;
    const started = Date.now();
    const start = job.processed_rows;
    const end = Math.min(job.total_rows, start + importChunkRows);
    const { valid, errors } = await reader.readRange(start, end);
    let fresh = new Set<string>();
    try {
      const result = await importContactRows(accountId, job.contact_type_id, valid, reader.columns, {
        deferCount: true,
        onClassified: async (emails) => {
          fresh = await claimChunk(accountId, importId, start, emails);
        },
      });
      await options.afterChunkWritten?.(start);
      // Counted from the emails new when the chunk was first claimed: a replay sees its own
      // earlier creations as existing contacts, yet they are still this import's new contacts.
      const refused = new Set(result.refused.map((row) => row.line));
      const imported = valid.filter((row) => fresh.has(row.fields.email.toLowerCase()) && !refused.has(row.line)).length;
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
