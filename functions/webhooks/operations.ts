// Outbound webhook operations: list, save (the secret answered once), delete.
import { accountOperation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { array, integer, string, validate } from '../../shared/validation';
import { listWebhooks, webhookEvents, type WebhookEvent } from '../../shared/webhooks/repository';
import { maxWebhookUrlLength } from '../../shared/webhooks/target';
import { removeWebhook, saveWebhook } from '../../shared/webhooks/webhook-service';

/** The save's fields (the OpenAPI document describes them from here too). */
export const webhookFields = {
  url: string().required().max(maxWebhookUrlLength),
  // Each event at most once is six; repeats within that are dropped.
  events: array(string().required().in(webhookEvents)).required().min(1).max(webhookEvents.length),
};

export const list = accountOperation(async ({ account }) => ok({ webhooks: await listWebhooks(account.id) }));

export const save = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, webhookFields);
  // Each item passed `in(webhookEvents)` above.
  return ok(await saveWebhook(account.id, { url: input.url, events: input.events as WebhookEvent[] }));
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { id: integer().required().min(1) });
  await removeWebhook(account.id, input.id);
  return ok('Deleted Successfully');
});
