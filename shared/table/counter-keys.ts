// Keys of the id counters: account ids, and ids of each kind of record within an account.
import { type Key } from './keys';

/** The counter that hands out account ids. */
export function accountIdCounterKey(): Key {
  return { pk: 'GLOBAL', sk: 'COUNTER#account' };
}

/** The counter that hands out ids of one kind of record within one account. */
export function idCounterKey(accountId: number, entity: string): Key {
  return { pk: `A#${accountId}`, sk: `COUNTER#${entity}` };
}
