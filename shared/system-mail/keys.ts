// Keys of the system-mail budget: one counter item per account and clock hour.
import { type Key, entityPartition } from '../table/keys';

export const SYSTEM_MAIL_BUDGET = 'system-mail-budget';

/** The counter of one account's system mail in the hour starting at `windowStart` (`YYYY-MM-DDTHH`, UTC). */
export function systemMailBudgetKey(accountId: number, windowStart: Date): Key {
  return { pk: entityPartition(accountId, SYSTEM_MAIL_BUDGET), sk: windowStart.toISOString().slice(0, 13) };
}
