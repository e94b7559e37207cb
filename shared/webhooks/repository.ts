// Outbound webhooks: every table access for their records. The account's count item moves in the same
// transaction as each save and delete, so two concurrent saves cannot pass the limit together, and
// carries a version every save and delete raises, which event paths compare with their copies.
import { isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { conditionHeld, getItem, queryAll, updateExistingItem, withoutKeys, type Item } from '../table/records';
import { transactWrite } from '../table/transactions';
import { WEBHOOK, webhookCircuitKey, webhookCountKey, webhookKey, webhookPartition } from './keys';

export const webhookEvents = ['delivered', 'open', 'click', 'bounce', 'complaint', 'unsubscribe'] as const;

export type WebhookEvent = (typeof webhookEvents)[number];

/** A webhook as the API shows it: never its secret. */
export interface Webhook {
  id: number;
  url: string;
  events: WebhookEvent[];
  created_at: string;
}

/** A webhook as the deliverer needs it: with its secret, encrypted as stored. */
export interface StoredWebhook extends Webhook {
  encrypted_secret: string;
}

function toWebhook(item: Item): Webhook {
  const { id, url, events, created_at } = withoutKeys<Webhook>(item);
  return { id, url, events, created_at };
}

/** The account's webhooks in id order (one Query: an account has a handful). */
export async function listWebhooks(accountId: number): Promise<Webhook[]> {
  return (await queryAll({ partition: webhookPartition(accountId) })).map(toWebhook);
}

/** The version of the account's webhooks (0 before the first save): any save or delete raises it. A strongly consistent read of one small item. */
export async function webhooksVersion(accountId: number): Promise<number> {
  const item = await getItem(webhookCountKey(accountId), { consistent: true });
  return Number(item?.version ?? 0);
}

export async function getStoredWebhook(accountId: number, id: number): Promise<StoredWebhook | undefined> {
  const item = await getItem(webhookKey(accountId, id));
  if (!item) return undefined;
  return { ...toWebhook(item), encrypted_secret: String(item.encrypted_secret) };
}

/** The account's webhooks with their sealed secrets (the re-seal reads them all). */
export async function listStoredWebhooks(accountId: number): Promise<StoredWebhook[]> {
  return (await queryAll({ partition: webhookPartition(accountId) })).map((item) => ({ ...toWebhook(item), encrypted_secret: String(item.encrypted_secret) }));
}

/** Store a webhook's secret sealed anew, unless the webhook is gone or its sealed form changed meanwhile (false then). */
export async function replaceSealedSecret(accountId: number, id: number, from: string, to: string): Promise<boolean> {
  const updated = await updateExistingItem(webhookKey(accountId, id), { encrypted_secret: to }, { condition: '#sealed = :from', names: { '#sealed': 'encrypted_secret' }, values: { ':from': from } });
  return updated !== undefined;
}

/** Add a webhook; undefined when the account already has `limit` of them. */
export async function addWebhook(
  accountId: number,
  input: { url: string; events: WebhookEvent[]; encryptedSecret: string },
  limit: number,
): Promise<Webhook | undefined> {
  const id = await nextId(accountId, WEBHOOK);
  const webhook: Webhook = { id, url: input.url, events: input.events, created_at: isoTimestamp() };
  const added = await conditionHeld(
    transactWrite([
      {
        Update: {
          Key: webhookCountKey(accountId),
          UpdateExpression: 'ADD #count :one, #version :one',
          ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
          ExpressionAttributeNames: { '#count': 'count', '#version': 'version' },
          ExpressionAttributeValues: { ':one': 1, ':limit': limit },
        },
      },
      {
        Put: {
          Item: { ...webhookKey(accountId, id), entity: WEBHOOK, ...webhook, user_id: accountId, encrypted_secret: input.encryptedSecret },
          ConditionExpression: 'attribute_not_exists(pk)',
        },
      },
    ]),
    { action: 0 },
  );
  // The id is fresh from the counter, so only the count can refuse.
  if (!added) return undefined;
  return webhook;
}

export async function deleteWebhook(accountId: number, id: number): Promise<void> {
  const deleted = await conditionHeld(
    transactWrite([
      { Delete: { Key: webhookKey(accountId, id), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Update: {
          Key: webhookCountKey(accountId),
          UpdateExpression: 'ADD #count :minusOne, #version :one',
          ExpressionAttributeNames: { '#count': 'count', '#version': 'version' },
          ExpressionAttributeValues: { ':minusOne': -1, ':one': 1 },
        },
      },
      // Its circuit goes with it, so no probe runs for it; its parked deliveries expire.
      { Delete: { Key: webhookCircuitKey(accountId, id) } },
    ]),
    { action: 0 },
  );
  if (!deleted) throw new RecordNotFound(WEBHOOK, id);
}
