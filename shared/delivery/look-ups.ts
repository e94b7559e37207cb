// What the deliverer looks up before it mails a window of recipients: who is suppressed now, and the
// ledger entries it must count rather than claim (shared/delivery/deliver.ts).
import { bouncedAmong } from '../suppressions/bounces';
import { suppressedAmong } from '../suppressions/repository';
import { suppressionsByState, type Suppressions } from '../suppressions/state';
import { ledgerEntriesAmong, type LedgerEntry } from '../ledger/repository';
import type { SendRef } from '../ledger/send-ref';
import type { SendContent } from './send-content';

/** The parts of the delivery options the look-ups follow (DeliveryOptions, deliver.ts). */
export interface LookUpOptions {
  batch?: { receive: number };
  ledgerByAddress?: boolean;
  suppressionState?: boolean;
}

/** An address as the ledger and the suppression look-ups key it. */
export const normalized = (email: string) => email.trim().toLowerCase();

/**
 * The addresses among `addresses` that may not be mailed now: unsubscribes, the group, bounces and
 * complaints. Eventually consistent reads (half the read units): a suppression written in the last
 * second may be missed by a mail already on its way, as it would be by one sent a moment earlier.
 * With the account's state complete, one key per address; else one per list.
 */
async function suppressedNow(ref: SendRef, content: SendContent, addresses: string[], options: LookUpOptions): Promise<Suppressions> {
  const eventually = { consistent: false };
  if (options.suppressionState === true) return suppressionsByState(ref.accountId, addresses, content.unsubscribeGroupId, eventually);
  const [unsubscribed, bounced] = await Promise.all([
    suppressedAmong(ref.accountId, addresses, content.unsubscribeGroupId, eventually),
    bouncedAmong(ref.accountId, addresses, eventually),
  ]);
  return { barred: new Set([...unsubscribed, ...bounced]), unsubscribed };
}

/**
 * The recipients' ledger entries read up front, and who is suppressed now. A redelivered batch (its
 * message's second receive or later) finds most of its recipients held, so every entry is read in
 * batches of keys. Otherwise an entry can only be there for a recipient another run or batch holds
 * (a duplicate address, a continuation's in-flight recipient, a parked batch queued again), which its
 * claim finds, being conditional: only the suppressed are read up front, so that one this batch
 * mailed still counts as mailed. Half a read unit a key, even a missing one: a first run reads
 * nearly none.
 */
export async function ledgerAndSuppressions(ref: SendRef, content: SendContent, addresses: string[], options: LookUpOptions): Promise<[Map<string, LedgerEntry>, Suppressions]> {
  const readLedger = (among: string[]) => (among.length === 0 ? Promise.resolve(new Map<string, LedgerEntry>()) : ledgerEntriesAmong(ref, among, { before: options.ledgerByAddress !== true }));
  if (options.batch && options.batch.receive > 1) return Promise.all([readLedger(addresses), suppressedNow(ref, content, addresses, options)]);
  const suppressed = await suppressedNow(ref, content, addresses, options);
  return [await readLedger(addresses.filter((address) => suppressed.barred.has(normalized(address)))), suppressed];
}
