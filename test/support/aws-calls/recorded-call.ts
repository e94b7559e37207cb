// One recorded AWS call, as the recorder writes it and the IAM check reads it: the function that made
// it, the service and SDK operation, and the part of the input that names what the call acts on.

export type AwsService = 'dynamodb' | 'sesv2' | 'sqs' | 'scheduler' | 'lambda' | 'secretsmanager' | 's3';

/** What a DynamoDB call acts on: its table (and index), or the tables of a batch or a transaction with each item's kind. */
export interface TableTarget {
  TableName?: string;
  IndexName?: string;
  /** BatchGetItem, BatchWriteItem: the tables named. */
  RequestItems?: string[];
  /** TransactWriteItems, TransactGetItems: each item's kind (Put, Update, Delete, ConditionCheck, Get) and table. */
  TransactItems?: { kind: string; TableName: string }[];
}

export interface RecordedCall {
  functionName: string;
  service: AwsService;
  operation: string;
  input: Record<string, unknown>;
}

/** A distinct call and how often it was made; `file` is a test file that made it. */
export interface CountedCall extends RecordedCall {
  count: number;
  file: string;
}

/** The address of a mailbox (`Name <a@b>` or `a@b`), lower-cased as SES compares identities. */
export function addressOf(mailbox: string): string {
  return (/<([^<>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim().toLowerCase();
}

/** The key two calls share when they are the same (function, operation, resources). */
export function callKey(call: RecordedCall): string {
  return JSON.stringify([call.functionName, call.service, call.operation, call.input]);
}
