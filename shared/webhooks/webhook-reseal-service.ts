// Moving webhook secrets sealed under the token-signing key (`v1.`) to the webhook secret key: each is
// opened with the old derivation and sealed anew. Run once after the upgrade that brought the webhook
// secret key (`npm run webhooks:reseal`, docs/operations.md); until then the deliverer cannot open
// those secrets and retries their deliveries on its backoff. Safe to run again or alongside traffic:
// a webhook deleted or re-sealed meanwhile is left as it is.
import { highestAccountId } from '../table/ids';
import { openLegacySecret } from './legacy-secret';
import { listStoredWebhooks, replaceSealedSecret } from './repository';
import { encryptSecret, isLegacySealed } from './secret';

export interface ResealReport {
  /** Account ids read, first to last. */
  accounts: { first: number; last: number };
  /** Webhooks sealed under the token-signing key that are now sealed under the webhook secret key. */
  resealed: number;
  /** Those no key of the token key set opens (a key removed from the set): their accounts must save them again. */
  unreadable: { account_id: number; webhook_id: number }[];
}

// Accounts whose webhooks are read at once: a few, so a large table is done in minutes without a burst.
const concurrentAccounts = 8;

async function resealAccount(accountId: number, report: ResealReport): Promise<void> {
  for (const webhook of await listStoredWebhooks(accountId)) {
    if (!isLegacySealed(webhook.encrypted_secret)) continue;
    let secret: string;
    try {
      secret = openLegacySecret(webhook.encrypted_secret);
    } catch {
      report.unreadable.push({ account_id: accountId, webhook_id: webhook.id });
      continue;
    }
    if (await replaceSealedSecret(accountId, webhook.id, webhook.encrypted_secret, encryptSecret(secret))) report.resealed++;
  }
}

/** Re-seal the `v1.` secrets of every account from `firstAccountId` on (1 unless resuming an interrupted run). */
export async function resealLegacySecrets(firstAccountId = 1): Promise<ResealReport> {
  const last = await highestAccountId();
  const report: ResealReport = { accounts: { first: firstAccountId, last }, resealed: 0, unreadable: [] };
  let next = firstAccountId;
  const worker = async (): Promise<void> => {
    while (next <= last) await resealAccount(next++, report);
  };
  await Promise.all(Array.from({ length: concurrentAccounts }, worker));
  report.unreadable.sort((a, b) => a.account_id - b.account_id || a.webhook_id - b.webhook_id);
  return report;
}
