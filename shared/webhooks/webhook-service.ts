// Saving and deleting an account's webhooks: the target checks (form, then deployed, the addresses
// its host resolves to), the secret made and encrypted, and the per-account limit.
import { ValidationError } from '../errors';
import { forgetCachedWebhooks } from './webhook-cache';
import { addWebhook, deleteWebhook, webhookEvents, type WebhookEvent } from './repository';
import { encryptSecret, newWebhookSecret } from './secret';
import { resolvesToPublicAddresses, urlFormProblem } from './target';

/** Webhooks one account may have: enough for a few integrations, few enough to read on every event. */
export const maxWebhooksPerAccount = 10;

/** What a save answers: the secret appears here once and never again. */
export interface SavedWebhook {
  id: number;
  secret: string;
}

export async function saveWebhook(accountId: number, input: { url: string; events: WebhookEvent[] }): Promise<SavedWebhook> {
  const problem = urlFormProblem(input.url);
  if (problem) throw ValidationError.of('url', problem);
  if (!(await resolvesToPublicAddresses(input.url))) throw ValidationError.of('url', 'The url field must name a host whose addresses are all public.');
  const secret = newWebhookSecret();
  // Each event once, in the catalogue's order, whatever order and repeats the request had.
  const events = webhookEvents.filter((event) => input.events.includes(event));
  const saved = await addWebhook(accountId, { url: input.url, events, encryptedSecret: encryptSecret(secret) }, maxWebhooksPerAccount);
  if (!saved) throw ValidationError.of('url', `An account may have at most ${maxWebhooksPerAccount} webhooks; delete one first.`);
  forgetCachedWebhooks(accountId);
  return { id: saved.id, secret };
}

export async function removeWebhook(accountId: number, id: number): Promise<void> {
  await deleteWebhook(accountId, id);
  forgetCachedWebhooks(accountId);
}
