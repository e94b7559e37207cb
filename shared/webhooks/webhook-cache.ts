// The container's copy of each account's webhooks, read where events happen: they rarely change, and
// an event path (the pixel, SES feedback) should not pay a Query every time.
import { listWebhooks, type Webhook } from './repository';

/**
 * How long a container trusts its copy of an account's webhooks. A webhook saved meanwhile may miss
 * this long of events in containers that had already read the account; a deleted one is never
 * delivered to (the deliverer reads the webhook itself).
 */
export const webhookCacheMs = 60_000;

/** Containers see few accounts at once; beyond this many the oldest copies are dropped. */
const maxCachedAccounts = 1_000;

const cache = new Map<number, { readAt: number; webhooks: Webhook[] }>();

export async function webhooksOf(accountId: number): Promise<Webhook[]> {
  const now = Date.now();
  const cached = cache.get(accountId);
  if (cached && now - cached.readAt < webhookCacheMs) return cached.webhooks;
  const webhooks = await listWebhooks(accountId);
  cache.delete(accountId);
  if (cache.size >= maxCachedAccounts) cache.delete(cache.keys().next().value as number);
  cache.set(accountId, { readAt: now, webhooks });
  return webhooks;
}

/** Drop this container's copy of an account's webhooks (after a save or delete in the same container). */
export function forgetCachedWebhooks(accountId: number): void {
  cache.delete(accountId);
}
