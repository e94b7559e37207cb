// The visible messages of a local queue, as an SQS fair queue serves them: each message group (the
// account) is a FIFO of its own, and the quiet groups come first: a message goes to the group with
// the fewest messages in flight, round-robin among equals, so one group's backlog and busy consumers
// do not hold up the others. Messages without a group form one default group.
import type { LocalMessage } from './local-message';

/** The key of the default group: messages sent without a message group. */
const defaultGroup = '\u0000default';

const keyOf = (message: LocalMessage): string => message.group ?? defaultGroup;

export class FairGroups {
  /** Visible messages per group key, in the order groups are next served (a served group moves last). */
  private readonly groups = new Map<string, LocalMessage[]>();
  /** Messages taken and not yet done, per group key. */
  private readonly inFlight = new Map<string, number>();
  private count = 0;

  /** Messages visible and not yet taken. */
  get size(): number {
    return this.count;
  }

  add(messages: readonly LocalMessage[]): void {
    for (const message of messages) {
      const key = keyOf(message);
      let fifo = this.groups.get(key);
      if (!fifo) {
        fifo = [];
        this.groups.set(key, fifo);
      }
      fifo.push(message);
      this.count++;
    }
  }

  /**
   * Up to `size` messages, one at a time from the group with the fewest in flight (SQS serves quiet
   * tenants before a noisy one); each group keeps its own order. They count as in flight until `done`.
   */
  take(size: number): LocalMessage[] {
    const batch: LocalMessage[] = [];
    while (batch.length < size) {
      const key = this.quietest();
      if (key === undefined) break;
      const fifo = this.groups.get(key) as LocalMessage[];
      const message = fifo.shift() as LocalMessage;
      this.groups.delete(key);
      this.count--;
      this.inFlight.set(key, (this.inFlight.get(key) ?? 0) + 1);
      batch.push(message);
      // The group just served goes to the back of the rotation.
      if (fifo.length > 0) this.groups.set(key, fifo);
    }
    return batch;
  }

  /** The consumer is done with messages `take` gave (deleted, dead-lettered or waiting to come back). */
  done(messages: readonly LocalMessage[]): void {
    for (const message of messages) {
      const key = keyOf(message);
      const left = (this.inFlight.get(key) ?? 0) - 1;
      if (left > 0) this.inFlight.set(key, left);
      else this.inFlight.delete(key);
    }
  }

  /** Every visible message, group by group, leaving none. */
  takeAll(): LocalMessage[] {
    const all = [...this.groups.values()].flat();
    this.groups.clear();
    this.count = 0;
    return all;
  }

  /** The first group in the rotation with the fewest messages in flight; undefined when none has a visible message. */
  private quietest(): string | undefined {
    let quietest: string | undefined;
    let fewest = Infinity;
    for (const key of this.groups.keys()) {
      const inFlight = this.inFlight.get(key) ?? 0;
      if (inFlight < fewest) {
        quietest = key;
        fewest = inFlight;
        if (inFlight === 0) break;
      }
    }
    return quietest;
  }
}
