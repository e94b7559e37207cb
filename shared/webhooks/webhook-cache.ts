// The container's copy of each account's webhooks, read where events happen: they rarely change, and
// an event path (the pixel, SES feedback) should not pay a Query every time. A copy is checked
// against the version on the account's webhook count item (one small read) at most once per clock
// second, so a webhook saved or deleted in any container applies to events from the next second on.
import { currentTime } from '../time';
import { listWebhooks, webhooksVersion, type Webhook } from './repository';

/** Containers see few accounts at once; beyond this many the oldest copies are dropped. */
const maxCachedAccounts = 1_000;

interface Copy {
  /** The clock second (epoch seconds) the version was last checked in. */
  checkedSecond: number;
  version: number;
  webhooks: Webhook[];
}

const cache = new Map<number, Copy>();

function keep(accountId: number, copy: Copy): void {
  cache.delete(accountId);
  if (cache.size >= maxCachedAccounts) cache.delete(cache.keys().next().value as number);
  cache.set(accountId, copy);
}

export async function webhooksOf(accountId: number): Promise<Webhook[]> {
  const second = Math.floor(currentTime().getTime() / 1000);
  const cached = cache.get(accountId);
  if (cached?.checkedSecond === second) return cached.webhooks;
  // The version first: a save landing between the two reads leaves an older version with newer
  // webhooks, which the next second's check reads again; never the other way round.
  const version = await webhooksVersion(accountId);
  if (cached?.version === version) {
    cached.checkedSecond = second;
    return cached.webhooks;
  }
  const webhooks = await listWebhooks(accountId);
  keep(accountId, { checkedSecond: second, version, webhooks });
  return webhooks;
}

/** Drop this container's copy of an account's webhooks (after a save or delete in the same container). */
export function forgetCachedWebhooks(accountId: number): void {
  cache.delete(accountId);
}
