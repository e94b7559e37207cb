// Keys of idempotency records: one item per account and client key, in a partition of its own (the
// key is hashed, so a client's 255 characters never reach the table's keys).
import { createHash } from 'node:crypto';
import { type Key, entityPartition } from '../table/keys';

export function idempotencyRecordKey(accountId: number, clientKey: string): Key {
  const hashed = createHash('sha256').update(clientKey).digest('base64url');
  return { pk: entityPartition(accountId, `idempotency#${hashed}`), sk: 'IDEMPOTENCY' };
}
