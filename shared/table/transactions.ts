// Transactions within DynamoDB's limits, and reading a cancelled one. A TransactWriteItems takes at
// most 100 actions and 4 MB of items: writes that need not commit together are packed into as many
// transactions as both limits ask. A cancelled one carries a TransactionCanceledException with one
// reason per action, in the order the actions were given. Every transaction is sent here, and
// names the table here: repositories hand in the actions without it.
import { TransactWriteCommand, type TransactWriteCommandInput } from '@aws-sdk/lib-dynamodb';
import { db, tableName } from './client';
import { itemBytes } from './item-size';

/** One action of a TransactWriteItems as the SDK takes it, the table named. */
export type TransactionItem = NonNullable<TransactWriteCommandInput['TransactItems']>[number];

type Tableless<Body> = Omit<Body, 'TableName'> & { TableName?: string };

/**
 * One action of a transaction on the table, as a repository writes it: the table is named when the
 * transaction is sent (an action that names it already, a TransactionItem, is one too).
 */
export interface TransactionAction {
  Put?: Tableless<NonNullable<TransactionItem['Put']>>;
  Update?: Tableless<NonNullable<TransactionItem['Update']>>;
  Delete?: Tableless<NonNullable<TransactionItem['Delete']>>;
  ConditionCheck?: Tableless<NonNullable<TransactionItem['ConditionCheck']>>;
}

/** The action with the table named. */
export function onTable(action: TransactionAction): TransactionItem {
  const table = tableName();
  const named: TransactionItem = {};
  if (action.Put) named.Put = { TableName: table, ...action.Put };
  if (action.Update) named.Update = { TableName: table, ...action.Update };
  if (action.Delete) named.Delete = { TableName: table, ...action.Delete };
  if (action.ConditionCheck) named.ConditionCheck = { TableName: table, ...action.ConditionCheck };
  return named;
}

/**
 * TransactWriteItems of these actions on the table, all or nothing. `token` (ClientRequestToken)
 * makes a retry after a fault that hid the commit a no-op.
 */
export async function transactWrite(actions: readonly TransactionAction[], options: { token?: string } = {}): Promise<void> {
  await db().send(
    new TransactWriteCommand({ TransactItems: actions.map(onTable), ...(options.token === undefined ? {} : { ClientRequestToken: options.token }) }),
  );
}

/** DynamoDB's limits of one TransactWriteItems: its actions, and the size of the items they carry. */
export const transactionLimits = { actions: 100, bytes: 4 * 1024 * 1024 };

/**
 * The bytes an action counts toward the 4 MB: a put's item; an update's, delete's or check's key and
 * the values and names of its expressions. DynamoDB Local counts the same way (an update of a large
 * item counts only what it sends).
 */
export function actionBytes(action: TransactionAction): number {
  if (action.Put) return itemBytes(action.Put.Item ?? {});
  const body = action.Update ?? action.Delete ?? action.ConditionCheck;
  if (!body) return 0;
  return itemBytes(body.Key ?? {}) + itemBytes(body.ExpressionAttributeValues ?? {}) + itemBytes(body.ExpressionAttributeNames ?? {});
}

/** One unit (writes that must commit together) is alone past a transaction's limits. */
export class TransactionTooLarge extends Error {
  constructor(
    readonly actions: number,
    readonly bytes: number,
  ) {
    super(`A transaction of ${actions} actions and ${bytes} bytes is past DynamoDB's limits of ${transactionLimits.actions} actions and ${transactionLimits.bytes} bytes`);
    this.name = 'TransactionTooLarge';
  }
}

/**
 * Units packed in their order into groups that each fit one transaction, every unit whole in one
 * group. `reserve` is what each transaction carries beside its units (a counter update). Throws
 * TransactionTooLarge when a unit cannot fit even alone.
 */
export function packTransactions<T>(
  units: readonly T[],
  actionsOf: (unit: T) => readonly TransactionAction[],
  reserve: { actions: number; bytes: number } = { actions: 0, bytes: 0 },
): T[][] {
  const room = { actions: transactionLimits.actions - reserve.actions, bytes: transactionLimits.bytes - reserve.bytes };
  const groups: T[][] = [];
  let group: T[] = [];
  let used = { actions: 0, bytes: 0 };
  for (const unit of units) {
    const actions = actionsOf(unit);
    const size = { actions: actions.length, bytes: actions.reduce((sum, action) => sum + actionBytes(action), 0) };
    if (size.actions > room.actions || size.bytes > room.bytes) throw new TransactionTooLarge(size.actions + reserve.actions, size.bytes + reserve.bytes);
    if (group.length > 0 && (used.actions + size.actions > room.actions || used.bytes + size.bytes > room.bytes)) {
      groups.push(group);
      group = [];
      used = { actions: 0, bytes: 0 };
    }
    group.push(unit);
    used = { actions: used.actions + size.actions, bytes: used.bytes + size.bytes };
  }
  if (group.length > 0) groups.push(group);
  return groups;
}

interface CancelledTransaction {
  name: 'TransactionCanceledException';
  CancellationReasons?: { Code?: string }[];
}

/** Whether the error is DynamoDB cancelling a transaction (a condition failed, a conflict, ...). */
export function isTransactionCancelled(error: unknown): error is CancelledTransaction {
  return (error as { name?: unknown } | null | undefined)?.name === 'TransactionCanceledException';
}

/**
 * The codes of a cancelled transaction, one per action in action order (`None` for an action that
 * did not fail, e.g. `ConditionalCheckFailed`, `TransactionConflict`); undefined for any other error.
 */
export function cancellationCodes(error: unknown): string[] | undefined {
  if (!isTransactionCancelled(error)) return undefined;
  return (error.CancellationReasons ?? []).map((reason) => reason.Code ?? 'None');
}

/**
 * Whether the transaction went through: false when DynamoDB cancelled it, for any reason (a failed
 * condition, a conflict with another write); any other error is thrown.
 */
export async function committed(transaction: Promise<unknown>): Promise<boolean> {
  try {
    await transaction;
    return true;
  } catch (error) {
    if (isTransactionCancelled(error)) return false;
    throw error;
  }
}

const maxConflictRetries = 8;

/**
 * Run a transaction whose conditions may refuse it: a refusal comes back as the per-action codes.
 * A cancellation with no failed condition (writers meeting on one item, e.g. deliveries settling into
 * one dispatch item) is not a refusal: it is retried with backoff a few times.
 */
export async function transactUnlessRefused(actions: readonly TransactionAction[]): Promise<{ ok: true } | { ok: false; codes: string[] }> {
  for (let attempt = 0; ; attempt++) {
    try {
      await transactWrite(actions);
      return { ok: true };
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      if (codes.includes('ConditionalCheckFailed')) return { ok: false, codes };
      if (attempt >= maxConflictRetries) throw error;
      await new Promise((resume) => setTimeout(resume, Math.min(500, 10 * 2 ** attempt + Math.random() * 20)));
    }
  }
}
