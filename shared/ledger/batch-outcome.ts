// What a recipient's ledger entry means for the batch being delivered: mailed or unknown through this
// batch (by this run or an earlier run of it, so a redelivered batch counts them again, exactly),
// held for another batch or an automation run (skipped here), or still claimed. A claim whose holder
// is dead (an earlier receive of the same message, or older than any SES call can take) is an unknown
// outcome: it is marked uncertain, never mailed again. A live holder's claim is waited for.
import { config } from '../config';
import { markClaimUncertain, readLedgerEntry, type LedgerEntry, type LedgerHolder } from './repository';
import type { SendRef } from './send-ref';
import { currentTime } from '../time';

/** How an existing entry counts for the batch; `absent` when its claim was given back meanwhile. */
export type EntryOutcome = 'sent' | 'uncertain' | 'elsewhere' | 'absent' | 'in-flight';

/** Between two looks at a claim another run of the batch holds. */
const pollMs = 250;

/** Time kept beyond SES's timeouts before a claim's holder is taken for dead: its answer and the ledger write after it. */
const holderMarginMs = 10_000;

/** Connection timeout of the SES client (shared/mail/mailer.ts): the longest a call can take is both. */
const sesConnectionTimeoutMs = 3_000;

function holderIsDead(entry: LedgerEntry, batch: LedgerHolder): boolean {
  const holder = entry.holder;
  // Lambda receives a message again only once its visibility timeout is over, past the run's own timeout.
  if (holder && holder.messageId === batch.messageId && holder.receive < batch.receive) return true;
  return currentTime().getTime() - entry.claimedAt > config().sesRequestTimeoutMs + sesConnectionTimeoutMs + holderMarginMs;
}

const sleep = (ms: number) => new Promise((resume) => setTimeout(resume, ms));

/**
 * The final outcome of an entry for `batch` (undefined: no batch, as for automation steps, where any
 * entry means the recipient is skipped). Waits while another live run of the batch holds the claim;
 * `in-flight` when `mayWait` says stop first.
 */
export async function outcomeForBatch(ref: SendRef, email: string, found: LedgerEntry | undefined, batch: LedgerHolder | undefined, mayWait: () => boolean): Promise<EntryOutcome> {
  for (let entry = found; ; entry = await readLedgerEntry(ref, email)) {
    if (!entry) return 'absent';
    if (!batch || entry.holder?.batchId !== batch.batchId) return 'elsewhere';
    if (entry.state !== 'claimed') return entry.state;
    if (holderIsDead(entry, batch)) {
      // Conditional: a holder that was alive after all and marked it sent first keeps its `sent`.
      if (await markClaimUncertain(entry)) return 'uncertain';
      continue;
    }
    if (!mayWait()) return 'in-flight';
    await sleep(pollMs);
  }
}
