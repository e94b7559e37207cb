// The SES sink keeps every mail in this process's memory. A bench run reads the mails as they land
// and drops them, so its peak RSS is the pipeline's own, not the sink's archive of 100,000 messages,
// and the check of who got mail does not ask the sink for one JSON body of them all.
import { clearStore, getStoreReadonly } from 'aws-ses-v2-local/dist/store';

export interface SinkTally {
  /** Every mail that landed. */
  mails: number;
  /** The distinct first recipients matching the run's pattern. */
  addresses: Set<string>;
}

/** Tally and drop the sink's mails every `everyMs` until `stop()`, which drains once more; when the run's first and last mails were seen. */
export function drainSink(pattern: RegExp, everyMs = 250): { tally: SinkTally; readonly firstAt: number | undefined; readonly lastAt: number | undefined; stop: () => SinkTally } {
  const tally: SinkTally = { mails: 0, addresses: new Set() };
  let firstAt: number | undefined;
  let lastAt: number | undefined;
  const drain = () => {
    // Synchronous from read to clear: no mail can land in between on this one thread.
    for (const mail of getStoreReadonly().emails) {
      tally.mails++;
      const to = mail.destination.to[0];
      if (!to || !pattern.test(to)) continue;
      tally.addresses.add(to);
      // Within `everyMs` of when the run's mails landed (other mail, e.g. a send's summary, is not timed).
      firstAt ??= Date.now();
      lastAt = Date.now();
    }
    clearStore();
  };
  const timer = setInterval(drain, everyMs);
  return {
    tally,
    get firstAt() {
      return firstAt;
    },
    get lastAt() {
      return lastAt;
    },
    stop: () => {
      clearInterval(timer);
      drain();
      return tally;
    },
  };
}
