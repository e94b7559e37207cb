// Keys of background jobs: one item per job in the account's job partition, by id.
import { type Key, entityKey, entityPartition } from '../table/keys';

export const JOB = 'job';

export function jobKey(accountId: number, id: number): Key {
  return entityKey(accountId, JOB, id);
}

export function jobPartition(accountId: number): string {
  return entityPartition(accountId, JOB);
}
