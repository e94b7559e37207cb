// Writing an import (a CSV file's, a JSON upsert's): many contacts of one type upserted by email, in
// batches, with every new email claimed atomically with its contact and one count change for the whole import.
import { isoTimestamp } from '../time';
import { chunked, inParallel } from '../table/concurrency';
import { confirmedWithoutAsking, contactAfterWrite, contactFitsOneItem, contactItem, contactTooLargeMessage, fieldsByName, type ContactFields, type Subscription } from '../contacts/items';
import { optInMailPut } from '../contacts/opt-in-outbox';
import type { ContactRecord } from '../contacts/record';
import { emailClaim, transact } from '../contacts/repository';
import { ContactTypeUnavailable } from '../contacts/errors';
import { contactEmailKey, contactKey } from '../contacts/keys';
import { contactTypeKey } from '../contact-types/keys';
import { conditionHeld, putItem, unlessConditionFails, updateItem } from '../table/records';
import type { ContactChange } from '../segments/membership';
import { cancellationCodes, packTransactions, type TransactionAction } from '../table/transactions';
import { format, messages } from '../validation';
import { canCreate, concurrency, existingByEmail, lookUpImport, typeIsOpen, type ImportLookup, type ImportRow } from './import-lookup';
import { expectOptInMails } from './opt-in-schedule';

/** A row refused while writing: its line, the field its message is about (as `contacts/add` keys it) and the message. */
export interface RefusedRow {
  line: number;
  field: string;
  message: string;
}

export interface ImportCounts {
  imported: number;
  updated: number;
  /** Rows refused while writing (an email claimed concurrently by another contact). */
  refused: RefusedRow[];
}

export interface ImportResult extends ImportCounts {
  /** Every contact written, before and after, for segment membership. */
  changes: ContactChange[];
  /** The contacts created, for enrolment in the type's live automations. */
  created: ContactRecord[];
}

export interface ImportOptions {
  /** The rows' lookup, made ahead (`lookUpImport` of the same rows); made here when absent. */
  lookup?: ImportLookup;
  /**
   * Called with the lower-cased emails the type does not hold yet, after they are looked up and
   * before anything is written: an import job records them, so a chunk replayed after a crash still
   * knows which rows it created.
   */
  onClassified?: (freshEmails: string[]) => Promise<void>;
  /** Leave the type's `contacts_count` to the caller (an import job adds it with its checkpoint). */
  deferCount?: boolean;
}

/** Contacts removed per transaction: each is two deletes, 100 actions in all. */
const newPerTransaction = 50;

/** The row a contact changed or deleted by another request since the lookup gets: it is left as that request made it. */
export const changedMeanwhileMessage = 'The contact was changed or deleted while the file was imported; import this row again.';

/**
 * Write updated contacts, each only if it still has the email and type the import read: a contact
 * deleted or moved to another type meanwhile is left as the other request made it (a BatchWriteItem
 * cannot carry a condition, so these are single conditional puts, `concurrency` at a time).
 * Answers the updates that were written and those refused.
 */
async function putUnchanged<T extends { before: ContactRecord; after: ContactRecord }>(updates: T[], fields: ReturnType<typeof fieldsByName>): Promise<{ written: T[]; changed: T[] }> {
  const written: T[] = [];
  const changed: T[] = [];
  await inParallel(updates, concurrency, async (update) => {
    const unchanged = await conditionHeld(
      putItem({
        Item: contactItem(update.after, fields),
        ConditionExpression: 'email = :email AND contact_type_id = :type',
        ExpressionAttributeValues: { ':email': update.before.email, ':type': update.before.contact_type_id },
      }),
    );
    (unchanged ? written : changed).push(update);
  });
  return { written, changed };
}

/**
 * Create contacts: each group (50, fewer of large contacts) is one transaction of claim + put pairs,
 * so no contact exists without its claim or the reverse. A group cancelled because some emails were
 * claimed meanwhile is retried without them; those rows are returned so the caller can treat them as updates.
 */
async function createMany(records: { row: ImportRow; record: ContactRecord }[], fields: ReturnType<typeof fieldsByName>) {
  const created: { row: ImportRow; record: ContactRecord }[] = [];
  const claimedMeanwhile: ImportRow[] = [];
  // A pending contact is created with its owed confirmation mail; the claim stays each contact's first action.
  const actionsOf = ({ record }: { record: ContactRecord }): TransactionAction[] => [
    emailClaim(record),
    { Put: { Item: contactItem(record, fields) } },
    ...(record.subscription_status === 'pending' ? [optInMailPut(record)] : []),
  ];
  // Packed by size as well: 50 contacts with many custom values can carry more than a transaction's 4 MB.
  await inParallel(packTransactions(records, actionsOf), concurrency, async (group) => {
    let pending = group;
    while (pending.length > 0) {
      try {
        await transact(pending.flatMap(actionsOf));
        created.push(...pending);
        return;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        // Each contact's claim is its first action; contacts owed a mail have one action more.
        let at = 0;
        const taken = new Set(
          pending.filter((entry) => {
            const failed = codes[at] === 'ConditionalCheckFailed';
            at += actionsOf(entry).length;
            return failed;
          }),
        );
        if (taken.size === 0) throw error;
        claimedMeanwhile.push(...[...taken].map(({ row }) => row));
        pending = pending.filter((entry) => !taken.has(entry));
      }
    }
  });
  return { created, claimedMeanwhile };
}

/** Remove what an import wrote when its type began closing meanwhile, so no contact outlives the type. */
async function removeWritten(accountId: number, records: ContactRecord[]): Promise<void> {
  await inParallel(chunked(records, newPerTransaction), concurrency, (group) =>
    transact(group.flatMap((record) => [
      { Delete: { Key: contactKey(accountId, record.id) } },
      { Delete: { Key: contactEmailKey(accountId, record.contact_type_id, record.email) } },
    ])),
  );
}

/** A row written over an existing contact: the file's columns replace, columns it lacks keep their values. */
function updatedRecord(before: ContactRecord, row: ImportRow, fileColumns: ReadonlySet<string>, fields: ReturnType<typeof fieldsByName>, now: string): ContactRecord {
  const columns = row.given ?? fileColumns;
  const merged = { ...row.fields };
  for (const name of Object.keys(merged) as (keyof ContactFields)[]) {
    if (name !== 'contact_type_id' && !columns.has(name)) (merged as Record<string, unknown>)[name] = before[name];
  }
  return contactAfterWrite(before.user_id, before.id, merged, row.customValues, fields, now, before);
}

/**
 * Upsert rows (unique emails, already validated) into one contact type: an email the type has
 * updates that contact, a new one creates a contact. `columns` names the standard columns the
 * file has. Keeps the type's count with one update and segment membership with one batch call.
 */
export async function importContacts(
  accountId: number,
  contactTypeId: number,
  rows: ImportRow[],
  columns: ReadonlySet<string>,
  options: ImportOptions = {},
): Promise<ImportResult> {
  if (options.lookup && options.lookup.rows !== rows) throw new Error('The import lookup given is of other rows');
  const { fields, existing: found, open, doubleOptIn, firstId } = options.lookup ?? (await lookUpImport(accountId, contactTypeId, rows));
  const subscription: Subscription = doubleOptIn ? { subscription_status: 'pending', confirmed_at: null } : confirmedWithoutAsking;
  if (!open) throw new ContactTypeUnavailable(contactTypeId);
  const now = isoTimestamp();
  const changes: ContactChange[] = [];
  const refused: ImportResult['refused'] = [];
  let existing = found;
  const unknown = rows.filter((row) => !existing.has(row.fields.email.toLowerCase()));
  // A row that leaves out the country can only update: a new contact is refused as contacts/add refuses one without it.
  const countryless = unknown.filter((row) => !canCreate(row));
  refused.push(...countryless.map((row) => ({ line: row.line, field: 'country', message: format(messages.required, { attribute: 'country' }) })));
  const fresh = unknown.filter((row) => !countryless.includes(row));
  let toUpdate = rows.filter((row) => existing.has(row.fields.email.toLowerCase()));
  // Whatever happened since the lookup (a contact added, changed or deleted meanwhile) the
  // conditional writes below find out; the lookup only decides which rows try to create.
  await options.onClassified?.(fresh.map((row) => row.fields.email.toLowerCase()));

  let created: { row: ImportRow; record: ContactRecord }[] = [];
  if (fresh.length > 0) {
    const records = fresh.map((row, index) => ({ row, record: contactAfterWrite(accountId, firstId + index, row.fields, row.customValues, fields, now, undefined, subscription) }));
    const tooLarge = records.filter(({ record }) => !contactFitsOneItem(record, fields));
    refused.push(...tooLarge.map(({ row }) => ({ line: row.line, field: 'custom_field', message: contactTooLargeMessage })));
    // One mark for the chunk's pending contacts, before any of them is written.
    if (doubleOptIn && tooLarge.length < records.length) await expectOptInMails(accountId);
    const outcome = await createMany(records.filter((entry) => !tooLarge.includes(entry)), fields);
    created = outcome.created;
    if (outcome.claimedMeanwhile.length > 0) {
      // Another request added these emails since the lookup: update those contacts instead.
      existing = new Map([...existing, ...(await existingByEmail(accountId, contactTypeId, outcome.claimedMeanwhile.map((row) => row.fields.email), fields))]);
      for (const row of outcome.claimedMeanwhile) {
        if (existing.has(row.fields.email.toLowerCase())) toUpdate.push(row);
        else refused.push({ line: row.line, field: 'email', message: format(messages.unique, { attribute: 'email' }) });
      }
    }
    changes.push(...created.map(({ record }) => ({ after: record })));
  }

  toUpdate = toUpdate.sort((a, b) => a.line - b.line);
  const planned = toUpdate.map((row) => {
    const before = existing.get(row.fields.email.toLowerCase()) as ContactRecord;
    return { line: row.line, before, after: updatedRecord(before, row, columns, fields, now) };
  });
  const oversized = planned.filter(({ after }) => !contactFitsOneItem(after, fields));
  refused.push(...oversized.map(({ line }) => ({ line, field: 'custom_field', message: contactTooLargeMessage })));
  const { written: updates, changed } = await putUnchanged(planned.filter((update) => !oversized.includes(update)), fields);
  refused.push(...changed.map(({ line }) => ({ line, field: 'email', message: changedMeanwhileMessage })));
  refused.sort((a, b) => a.line - b.line);
  changes.push(...updates.map(({ before, after }) => ({ before, after })));

  if (!(await typeIsOpen(accountId, contactTypeId))) {
    await removeWritten(accountId, [...created.map(({ record }) => record), ...updates.map(({ after }) => after)]);
    throw new ContactTypeUnavailable(contactTypeId);
  }
  if (created.length > 0 && !options.deferCount) await addToCount(accountId, contactTypeId, created.length);

  return { imported: created.length, updated: updates.length, refused, changes, created: created.map(({ record }) => record) };
}

/** One count change for the whole import; a type deleted meanwhile is left alone (its contacts go with it). */
async function addToCount(accountId: number, contactTypeId: number, count: number): Promise<void> {
  await unlessConditionFails(
    updateItem({
      Key: contactTypeKey(accountId, contactTypeId),
      UpdateExpression: 'ADD contacts_count :count',
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeValues: { ':count': count },
    }),
  );
}
