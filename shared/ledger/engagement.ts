// An address's latest people's open and latest people's click of any mail of the account (a single
// send or an automation step), the facts `in last days` conditions read. One small item per address
// and kind, written on a person's first open (or click) of each mail, and listed on gsi1 by the UTC day
// it fell on, so the daily slide finds the addresses whose day just left a window without a scan.
import { fnv1a } from '../table/keys';
import { currentTime } from '../time';
import { batchGetAll } from '../table/batch';
import { conditionHeld, queryAll, updateItem } from '../table/records';
import { engagementDayPartition, engagementDayShards, engagementKey, type EngagementKind } from './keys';

/**
 * Kept past the longest window (365 days) with room to spare; an address whose latest open is older
 * is outside every window, as one never mailed is, so TTL may remove it for free.
 */
const retentionDays = 400;

function dayOf(time: Date): string {
  return time.toISOString().slice(0, 10);
}

/**
 * Note that the address engaged now. Written only when its stored day is older than today, so a
 * second mail opened the same day costs a refused condition (1 write unit) and moves no index entry.
 * True when the item was written.
 */
export function noteEngagement(accountId: number, email: string, kind: EngagementKind): Promise<boolean> {
  const now = currentTime();
  const today = dayOf(now);
  const address = email.trim().toLowerCase();
  return conditionHeld(
    updateItem({
      Key: engagementKey(accountId, address, kind),
      UpdateExpression: 'SET entity = :entity, last_day = :today, last_at = :now, gsi1pk = :day, gsi1sk = :address, expires_at = :expires',
      ConditionExpression: 'attribute_not_exists(last_day) OR last_day < :today',
      ExpressionAttributeValues: {
        ':entity': 'engagement',
        ':today': today,
        ':now': now.toISOString(),
        ':day': engagementDayPartition(accountId, kind, today, fnv1a(address) % engagementDayShards),
        ':address': address,
        ':expires': Math.floor(now.getTime() / 1000) + retentionDays * 86_400,
      },
    }),
  );
}

/** Each address's latest open and click days (lower-cased address -> days), for the kinds asked. */
export async function engagementDays(
  accountId: number,
  addresses: readonly string[],
  kinds: readonly EngagementKind[],
  options: { consistentRead?: boolean } = {},
): Promise<Map<string, Partial<Record<EngagementKind, string>>>> {
  const days = new Map<string, Partial<Record<EngagementKind, string>>>();
  if (kinds.length === 0 || addresses.length === 0) return days;
  const keys = addresses.flatMap((address) => kinds.map((kind) => engagementKey(accountId, address, kind)));
  for (const item of await batchGetAll(keys, { consistentRead: options.consistentRead, concurrency: 4 })) {
    const address = String(item.gsi1sk);
    days.set(address, { ...days.get(address), [String(item.sk) as EngagementKind]: String(item.last_day) });
  }
  return days;
}

/** The addresses whose latest open (or click) fell on `day`: one Query per shard of that day's index partition. */
export async function addressesEngagedOn(accountId: number, kind: EngagementKind, day: string): Promise<string[]> {
  const shards = await Promise.all(
    Array.from({ length: engagementDayShards }, (_, shard) => queryAll({ partition: engagementDayPartition(accountId, kind, day, shard), index: 'gsi1' })),
  );
  return shards.flat().map((item) => String(item.gsi1sk));
}
