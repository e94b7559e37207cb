// The visible messages of a local queue, as an SQS fair queue serves them: each message group (the
// account) is a FIFO of its own, and batches are filled round-robin across groups, so one group's
// backlog does not hold up the others. Messages without a group form one default group.
import type { LocalMessage } from './local-message';

/** The key of the default group: messages sent without a message group. */
const defaultGroup = '\u0000default';

export class FairGroups {
  /** Visible messages per group key, in the order groups are next served (a served group moves last). */
  private readonly groups = new Map<string, LocalMessage[]>();
  private count = 0;

  /** Messages visible and not yet taken. */
  get size(): number {
    return this.count;
  }

  add(messages: readonly LocalMessage[]): void {
    for (const message of messages) {
      const key = message.group ?? defaultGroup;
      let fifo = this.groups.get(key);
      if (!fifo) {
        fifo = [];
        this.groups.set(key, fifo);
      }
      fifo.push(message);
      this.count++;
    }
  }

  /** Up to `size` messages, one at a time from each group in turn; each group keeps its own order. */
  take(size: number): LocalMessage[] {
    const batch: LocalMessage[] = [];
    while (batch.length < size) {
      const next = this.groups.entries().next();
      if (next.done) break;
      const [key, fifo] = next.value;
      const message = fifo.shift();
      this.groups.delete(key);
      if (!message) continue;
      this.count--;
      batch.push(message);
      // The group just served goes to the back of the rotation.
      if (fifo.length > 0) this.groups.set(key, fifo);
    }
    return batch;
  }

  /** Every visible message, group by group, leaving none. */
  takeAll(): LocalMessage[] {
    const all = [...this.groups.values()].flat();
    this.groups.clear();
    this.count = 0;
    return all;
  }
}
