// An import job's own item is written once per chunk: the checkpoint that moves the job past a chunk
// also records which emails the next chunk (already looked up) will create, so the next chunk's
// writes start without a round trip of their own. A run that stops between chunks leaves no such
// record behind, and a crash after it still counts every row once.
import { importChunkRows, runImportJob } from '../../shared/audience/import-runner';
import { contactImportKey } from '../../shared/contacts/import-keys';
import { createImportJob, getImportJob } from '../../shared/contacts/import-jobs';
import { tableRows } from '../../shared/contacts/import-rows';
import { readCsvTable } from '../../shared/csv/read-csv';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { db } from '../../shared/table/client';
import { newAccount } from '../support/accounts';
import { addType, contactCounts, listContacts } from '../support/contacts';

beforeAll(seedReferenceData);

/** A file of one full chunk and two rows more: `person0@example.com` ... */
const rows = importChunkRows + 2;
const file = async () => {
  const lines = ['email,first_name,country'];
  for (let i = 0; i < rows; i++) lines.push(`person${i}@example.com,From the file ${i},US`);
  return tableRows(await readCsvTable(Buffer.from(lines.join('\n'))));
};

interface Write {
  command: string;
  /** What the write does to the job's item: its update expression. */
  expression: string;
}

/** The writes to one item, in order, while `run` runs (counted by middleware on the document client). */
async function writesTo(key: { pk: string; sk: string }, run: () => Promise<unknown>): Promise<Write[]> {
  const writes: Write[] = [];
  const client = db();
  const name = `writesTo-${key.pk}`;
  const ofKey = (input: { Key?: Record<string, unknown> } | undefined) => input?.Key?.pk === key.pk && input?.Key?.sk === key.sk;
  client.middlewareStack.add(
    (next, context) => (args) => {
      const input = args.input as { Key?: Record<string, unknown>; UpdateExpression?: string; TransactItems?: { Update?: { Key?: Record<string, unknown>; UpdateExpression?: string } }[] };
      const command = String(context.commandName);
      if (command === 'UpdateItemCommand' && ofKey(input)) writes.push({ command, expression: input.UpdateExpression ?? '' });
      const update = input.TransactItems?.find((item) => ofKey(item.Update))?.Update;
      if (command === 'TransactWriteItemsCommand' && update) writes.push({ command, expression: update.UpdateExpression ?? '' });
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await run();
  } finally {
    client.middlewareStack.remove(name);
  }
  return writes;
}

test("a job writes its own item once per chunk and once more: the next chunk's claim goes with the checkpoint", async () => {
  // Prepare: a job of two chunks.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const table = await file();
  const job = await createImportJob(keys.account_id, typeId, table.count);

  // Act
  let finished: Awaited<ReturnType<typeof runImportJob>> | undefined;
  const writes = await writesTo(contactImportKey(keys.account_id, job.id), async () => {
    finished = await runImportJob(keys.account_id, job.id, table);
  });

  // Assess: the first chunk's claim, then two checkpoints, the first carrying the second chunk's claim.
  expect(writes.map((write) => write.command)).toEqual(['UpdateItemCommand', 'TransactWriteItemsCommand', 'TransactWriteItemsCommand']);
  expect(writes.map((write) => /pending_fresh = :fresh/.test(write.expression))).toEqual([true, true, false]);
  expect(finished).toMatchObject({ status: 'completed', processed_rows: rows, imported: rows, updated: 0, failed: 0 });
  expect(await getImportJob(keys.account_id, job.id)).not.toHaveProperty('pending_start');
  expect(await contactCounts(keys)).toEqual({ [typeId]: rows });
});

test('a run that stops between chunks leaves no claim for the next chunk behind', async () => {
  // Prepare
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const table = await file();
  const job = await createImportJob(keys.account_id, typeId, table.count);

  // Act: one chunk, as a Lambda short of time would.
  const stopped = await runImportJob(keys.account_id, job.id, table, { keepGoing: (longest) => longest === 0 });

  // Assess: past the first chunk, nothing claimed; the next run imports the rest, counted once.
  expect(stopped).toMatchObject({ status: 'running', processed_rows: importChunkRows, imported: importChunkRows });
  expect(await getImportJob(keys.account_id, job.id)).not.toHaveProperty('pending_start');
  const finished = await runImportJob(keys.account_id, job.id, table);
  expect(finished).toMatchObject({ status: 'completed', processed_rows: rows, imported: rows, updated: 0, failed: 0 });
  expect(await contactCounts(keys)).toEqual({ [typeId]: rows });
});

test('a crash after a chunk claimed with the checkpoint before it is written again and counted once', async () => {
  // Prepare: a job whose second chunk is claimed with the first chunk's checkpoint.
  const keys = await newAccount();
  const typeId = await addType(keys, 'Customers');
  const table = await file();
  const job = await createImportJob(keys.account_id, typeId, table.count);
  const crash = new Error('crashed before the checkpoint');

  // Act: the run crashes after writing the second chunk, before its checkpoint; a new run resumes.
  await expect(
    runImportJob(keys.account_id, job.id, table, {
      afterChunkWritten: async (start) => {
        if (start === importChunkRows) throw crash;
      },
    }),
  ).rejects.toBe(crash);
  const halfway = await getImportJob(keys.account_id, job.id);
  const finished = await runImportJob(keys.account_id, job.id, table);

  // Assess: the crashed chunk was claimed by the first checkpoint; every row is imported once.
  expect(halfway).toMatchObject({ status: 'running', processed_rows: importChunkRows, imported: importChunkRows, pending_start: importChunkRows });
  expect(halfway.pending_fresh).toEqual([`person${importChunkRows}@example.com`, `person${importChunkRows + 1}@example.com`]);
  expect(finished).toMatchObject({ status: 'completed', processed_rows: rows, imported: rows, updated: 0, failed: 0 });
  expect(await contactCounts(keys)).toEqual({ [typeId]: rows });
  expect(await listContacts(keys)).toHaveLength(rows);
});
