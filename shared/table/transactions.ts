// Reading a cancelled TransactWriteItems: DynamoDB refuses the whole transaction with a
// TransactionCanceledException carrying one reason per action, in the order the actions were given.

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
