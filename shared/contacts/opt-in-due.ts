// The index of the accounts that may owe confirmation mails (opt-in-outbox.ts): one small item per
// account, on a sparse gsi1 in a few write shards, saying when its mailer is next due to be booked
// unless a run of it says otherwise. The send watchdog reads it (one Query per shard, never a Scan)
// to book the mailer of an account whose booking was lost. Whenever mails may have become owed (new
// pending contacts, a sender verified) the item is marked: `marks` counts up and `marked_at` moves to
// now, so a run that read it before can tell that what it saw may be out of date.
import { currentTime } from '../time';
import { entityPartition, type Key } from '../table/keys';
import { conditionHeld, deleteItem, getItem, query, updateItem } from '../table/records';
import { OPT_IN_MAIL } from './opt-in-outbox';

const OPT_IN_DUE = 'opt-in-due';

/** Write shards of the index: accounts spread by id, so the marks of many accounts never meet on one partition. */
export const optInDueShards = 4;

export function optInDueKey(accountId: number): Key {
  return { pk: entityPartition(accountId, OPT_IN_MAIL), sk: 'DUE' };
}

function duePartition(accountId: number): string {
  return `OPT-IN-MAIL-DUE#${accountId % optInDueShards}`;
}

/** `<ISO due time>#<account>`: in time order, so the due entries of a shard are one range. */
function dueSortKey(at: Date, accountId: number): string {
  return `${at.toISOString()}#${accountId}`;
}

/** An account whose entry is due, as the index listed it: `dueKey` names this version of the entry. */
export interface DueOptInAccount {
  accountId: number;
  dueKey: string;
}

/** The entry of an account as a run reads it before it starts: its last mark, and whether it is on the index. */
export interface OptInDueEntry {
  /** The count of marks, naming the last; null when the account has no entry. */
  marks: number | null;
  /** When mails last may have become owed (epoch ms); null when the account has no entry. */
  markedAt: number | null;
  listed: boolean;
}

/**
 * Mails may become owed: the entry is made, or marked again, and put on the index due at `at` unless
 * it is on it already (a due time a run or the watchdog set stands, so a stream of marks never puts
 * the account off). `onlyIfPresent` leaves an account without an entry alone: it owes nothing.
 */
export async function markOptInMailsOwed(accountId: number, at: Date, options: { onlyIfPresent?: boolean } = {}): Promise<void> {
  const write = updateItem({
    Key: optInDueKey(accountId),
    UpdateExpression: 'SET entity = :entity, account_id = :account, marked_at = :now, gsi1pk = :partition, gsi1sk = if_not_exists(gsi1sk, :due) ADD marks :one',
    ...(options.onlyIfPresent ? { ConditionExpression: 'attribute_exists(pk)' } : {}),
    ExpressionAttributeValues: {
      ':entity': OPT_IN_DUE,
      ':account': accountId,
      ':now': currentTime().toISOString(),
      ':partition': duePartition(accountId),
      ':due': dueSortKey(at, accountId),
      ':one': 1,
    },
  });
  if (options.onlyIfPresent) await conditionHeld(write);
  else await write;
}

/** Accounts due before `before`, earliest first per shard, at most `limitPerShard` of each shard. */
export async function dueOptInAccounts(before: Date, limitPerShard = 100): Promise<DueOptInAccount[]> {
  const shards = await Promise.all(
    Array.from({ length: optInDueShards }, async (_, shard) => {
      const result = await query({
        IndexName: 'gsi1',
        // `<time>#<account>` sorts before `<before>` exactly when the time is earlier.
        KeyConditionExpression: 'gsi1pk = :partition AND gsi1sk < :before',
        ExpressionAttributeValues: { ':partition': `OPT-IN-MAIL-DUE#${shard}`, ':before': before.toISOString() },
        ProjectionExpression: 'gsi1sk',
        Limit: limitPerShard,
      });
      return (result.Items ?? []).map((item) => {
        const dueKey = String(item.gsi1sk);
        return { accountId: Number(dueKey.split('#')[1]), dueKey };
      });
    }),
  );
  return shards.flat();
}

/** Move a listed account's due time to `at`, unless its entry changed since it was listed (then false). */
export function putOffOptInDue(entry: DueOptInAccount, at: Date): Promise<boolean> {
  return conditionHeld(
    updateItem({
      Key: optInDueKey(entry.accountId),
      UpdateExpression: 'SET gsi1sk = :due',
      ConditionExpression: 'gsi1sk = :read',
      ExpressionAttributeValues: { ':due': dueSortKey(at, entry.accountId), ':read': entry.dueKey },
    }),
  );
}

/**
 * A run of the account's mailer starts: its entry as it stands, and, when it is on the index, its due
 * time moved to `leaseUntil`, so the run is not booked again while it goes on.
 */
export async function beginOptInRun(accountId: number, leaseUntil: Date): Promise<OptInDueEntry> {
  const item = await getItem(optInDueKey(accountId), { consistent: true });
  const entry: OptInDueEntry = item
    ? { marks: Number(item.marks ?? 0), markedAt: Date.parse(String(item.marked_at)), listed: item.gsi1pk !== undefined }
    : { marks: null, markedAt: null, listed: false };
  if (entry.listed) {
    await conditionHeld(
      updateItem({
        Key: optInDueKey(accountId),
        UpdateExpression: 'SET gsi1sk = :due',
        ConditionExpression: 'marks = :read AND attribute_exists(gsi1pk)',
        ExpressionAttributeValues: { ':due': dueSortKey(leaseUntil, accountId), ':read': entry.marks },
      }),
    );
  }
  return entry;
}

/** The write's condition: the entry is still as the run read it (no mark since). */
function unchangedSince(entry: OptInDueEntry): { ConditionExpression: string; ExpressionAttributeValues: Record<string, unknown> } {
  return entry.marks === null
    ? { ConditionExpression: 'attribute_not_exists(pk)', ExpressionAttributeValues: {} }
    : { ConditionExpression: 'marks = :read', ExpressionAttributeValues: { ':read': entry.marks } };
}

/**
 * What a run left owed: due at `at` (null: off the index, waiting for something that marks it again),
 * unless mails were marked owed since the run read the entry (then false, and the entry is left as the
 * mark made it). An account without an entry gets one, its mark the run's start.
 */
export function setOptInDue(accountId: number, entry: OptInDueEntry, at: Date | null, runStart: Date): Promise<boolean> {
  const unchanged = unchangedSince(entry);
  const values = { ':entity': OPT_IN_DUE, ':account': accountId, ':start': runStart.toISOString(), ':zero': 0, ...unchanged.ExpressionAttributeValues };
  const set = 'SET entity = :entity, account_id = :account, marked_at = if_not_exists(marked_at, :start), marks = if_not_exists(marks, :zero)';
  return conditionHeld(
    updateItem({
      Key: optInDueKey(accountId),
      ...(at === null
        ? { UpdateExpression: `${set} REMOVE gsi1pk, gsi1sk`, ExpressionAttributeValues: values }
        : {
            UpdateExpression: `${set}, gsi1pk = :partition, gsi1sk = :due`,
            ExpressionAttributeValues: { ...values, ':partition': duePartition(accountId), ':due': dueSortKey(at, accountId) },
          }),
      ConditionExpression: unchanged.ConditionExpression,
    }),
  );
}

/** Nothing is owed: the account leaves the index, unless mails were marked owed since the run read the entry. */
export function clearOptInDue(accountId: number, entry: OptInDueEntry): Promise<boolean> {
  if (entry.marks === null) return Promise.resolve(true);
  return conditionHeld(deleteItem({ Key: optInDueKey(accountId), ...unchangedSince(entry) }));
}
