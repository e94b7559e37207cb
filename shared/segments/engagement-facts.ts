// Reading the engagement facts a segment's conditions need, for a batch of addresses: per single send
// named, the address's ledger entry and its people's open and click markers (the items the send and
// the pixel already write, and where they were stored before the ledger was kept by address); for
// windows, the address's latest open and click days (ledger/engagement.ts).
import { batchGetAll } from '../table/batch';
import { engagementDays } from '../ledger/engagement';
import { legacyEventMarkerKey, legacySendLedgerKey, sendEventMarkerKey, sendLedgerKey, type EngagementKind } from '../ledger/keys';
import { encodeSendRef } from '../ledger/send-ref';
import { namesSingleSend, noEngagement, type EngagementFacts, type SendEngagement } from './engagement-rules';
import { isEngagementCondition, type Condition } from './rules';

function addressOf(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether any condition reads engagement: only then are facts read at all. */
export function readsEngagement(conditions: readonly Condition[]): boolean {
  return conditions.some(isEngagementCondition);
}

/**
 * The facts of each address (lower-cased) for these conditions; addresses without any get empty
 * facts. Strongly consistent when asked (an open's own write must be seen by the sync that follows it).
 */
export async function engagementFactsOf(
  accountId: number,
  emails: readonly string[],
  conditions: readonly Condition[],
  options: { consistentRead?: boolean } = {},
): Promise<Map<string, EngagementFacts>> {
  const addresses = [...new Set(emails.map(addressOf))];
  const engagement = conditions.filter(isEngagementCondition);
  const utrs = [...new Set(engagement.filter((condition) => namesSingleSend(condition.operator)).map((condition) => condition.value))];
  const kinds = new Set<EngagementKind>();
  for (const condition of engagement) {
    if (namesSingleSend(condition.operator)) continue;
    // A click counts as an open: an `email_opened` window reads both days.
    kinds.add('click');
    if (condition.field === 'email_opened') kinds.add('open');
  }
  const facts = new Map<string, EngagementFacts>(addresses.map((address) => [address, noEngagement]));
  if (engagement.length === 0 || addresses.length === 0) return facts;

  const sendKeys = utrs.flatMap((utr) => {
    const ref = encodeSendRef({ kind: 'single-send', accountId, utr });
    return addresses.flatMap((address) => [
      sendLedgerKey(accountId, ref, address),
      sendEventMarkerKey(accountId, ref, address, 'open'),
      sendEventMarkerKey(accountId, ref, address, 'click'),
      legacySendLedgerKey(accountId, ref, address),
      legacyEventMarkerKey(accountId, ref, address, 'open'),
      legacyEventMarkerKey(accountId, ref, address, 'click'),
    ]);
  });
  const [sendItems, days] = await Promise.all([
    batchGetAll(sendKeys, { consistentRead: options.consistentRead, concurrency: 4 }),
    engagementDays(accountId, addresses, [...kinds], options),
  ]);
  const present = new Map(sendItems.map((item) => [`${String(item.pk)}|${String(item.sk)}`, item]));
  for (const address of addresses) {
    const sends = new Map<string, SendEngagement>();
    for (const utr of utrs) {
      const ref = encodeSendRef({ kind: 'single-send', accountId, utr });
      const has = (key: { pk: string; sk: string }) => present.get(`${key.pk}|${key.sk}`);
      const ledger = has(sendLedgerKey(accountId, ref, address)) ?? has(legacySendLedgerKey(accountId, ref, address));
      const marked = (event: EngagementKind) => has(sendEventMarkerKey(accountId, ref, address, event)) !== undefined || has(legacyEventMarkerKey(accountId, ref, address, event)) !== undefined;
      sends.set(utr, {
        mailed: ledger !== undefined && (ledger.state === 'sent' || ledger.state === 'uncertain'),
        opened: marked('open'),
        clicked: marked('click'),
      });
    }
    const day = days.get(address);
    facts.set(address, { sends, lastOpenDay: day?.open ?? null, lastClickDay: day?.click ?? null });
  }
  return facts;
}
