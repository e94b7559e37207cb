// Applying membership changes to one segment's recipient items: read the items involved, work out
// their new content in memory, and write only what differs, with a change of one of the segment's
// counters (counts.ts) in the same transaction; the segment item itself is never written.
// Optimistic: every write is conditional and a lost race is read again and retried.
import { isoTimestamp } from '../time';
import type { TransactionAction } from '../table/transactions';
import { reserveIds } from '../table/ids';
import { countChange } from './counts';
import { SEGMENT_RECIPIENT, segmentRecipientIdIndexKey, segmentRecipientKey } from './keys';
import type { Key } from '../table/keys';
import type { Item } from '../table/records';
import { recipientItemsAt, recipientState, type ContactEntry, type ManualEntry, type RecipientState, type RecipientItems } from './recipients';
import { cancellationCodes, transactWrite } from '../table/transactions';

export type MembershipChange =
  /** The contact matches: its entry is (or stays) in the item of its address. */
  | { kind: 'contact-in'; entry: ContactEntry }
  /** The contact no longer matches at this address: its entry leaves, if it is the one there. */
  | { kind: 'contact-out'; email: string; contactId: number }
  /** A manually stored entry; refused (reported as taken) when the address already has one. */
  | { kind: 'manual-in'; entry: ManualEntry };

/** The segment was deleted, or its rules changed since the caller read them: its work is stale. */
export class SegmentChanged extends Error {
  constructor(readonly segmentId: number) {
    super(`Segment ${segmentId} changed while its membership was being written`);
    this.name = 'SegmentChanged';
  }
}

export interface ChangeOutcome {
  /** Addresses whose manual entry was refused because one already exists. */
  manualTaken: string[];
  /** Contacts that started to match the segment (its live automations enrol them; see the enrolment service). */
  joined: SegmentJoiner[];
}

/** A contact that started to match a segment. */
export interface SegmentJoiner {
  contactId: number;
  email: string;
}

const maxAttempts = 8;
const parallelReads = 8;
/**
 * DynamoDB allows 100 actions per transaction; one is a counter's change or check. Groups run one
 * after another, each with one of the segment's 16 counters picked at random.
 */
const writesPerTransaction = 99;

function addressKey(email: string): string {
  return email.trim().toLowerCase();
}

/** Whether the contact already matched at this address before the change (then it did not join). */
function wasMatched(before: Map<string, Item>, joiner: { contactId: number; email: string }): boolean {
  return recipientState(before.get(addressKey(joiner.email)))?.contact?.contact_id === joiner.contactId;
}

function pause(attempt: number): Promise<void> {
  return new Promise((resume) => setTimeout(resume, Math.min(1000, 20 * 2 ** attempt + Math.random() * 20)));
}

/** The current items at these addresses; a large import reads its groups of 100 a few at a time in parallel. */
function readItems(accountId: number, segmentId: number, addresses: string[]): Promise<RecipientItems> {
  return recipientItemsAt(accountId, segmentId, addresses, { consistentRead: true, concurrency: parallelReads });
}

/** Where an address's item is written: where it was read (a shard, or where it was stored before the shards), else its shard. */
function keyOf(accountId: number, segmentId: number, address: string, old: Item | undefined): Key {
  return old ? { pk: String(old.pk), sk: String(old.sk) } : segmentRecipientKey(accountId, segmentId, address);
}

/** The deletes of stray copies (recipients.ts), each counted out: both copies were counted in. */
function strayDeletes(copies: Map<string, Item>): Write[] {
  return [...copies.values()].map((item) => ({
    delta: -1,
    action: {
      Delete: {
        Key: { pk: String(item.pk), sk: String(item.sk) },
        ConditionExpression: '#version = :version',
        ExpressionAttributeNames: { '#version': 'version' },
        ExpressionAttributeValues: { ':version': item.version },
      },
    },
  }));
}

function applyChange(states: Map<string, RecipientState | undefined>, change: MembershipChange, taken: string[]): void {
  if (change.kind === 'contact-in') {
    const address = addressKey(change.entry.email);
    states.set(address, { ...states.get(address), contact: change.entry });
  } else if (change.kind === 'contact-out') {
    const address = addressKey(change.email);
    const state = states.get(address);
    if (state?.contact?.contact_id !== change.contactId) return;
    states.set(address, state.manual ? { ...state, contact: undefined } : undefined);
  } else {
    const address = addressKey(change.entry.email);
    const state = states.get(address);
    if (state?.manual) taken.push(address);
    else states.set(address, { ...state, manual: change.entry });
  }
}

/** Content comparison in a fixed field order (items read back may order map attributes differently). */
function content(state: RecipientState | undefined): string {
  if (!state) return '';
  const manual = state.manual && [state.manual.first_name, state.manual.last_name, state.manual.email];
  const contact = state.contact && [
    state.contact.contact_id,
    state.contact.first_name,
    state.contact.last_name,
    state.contact.email,
    state.contact.country,
    state.contact.state,
    state.contact.city,
    state.contact.address_line1,
  ];
  return JSON.stringify([manual ?? null, contact ?? null]);
}

interface Write {
  action: TransactionAction;
  delta: number;
}

function planWrites(
  accountId: number,
  segmentId: number,
  before: Map<string, Item>,
  after: Map<string, RecipientState | undefined>,
  newIds: () => number,
): Write[] {
  const now = isoTimestamp();
  const writes: Write[] = [];
  for (const [address, state] of after) {
    const old = recipientState(before.get(address));
    if (content(old) === content(state)) continue;
    const key = keyOf(accountId, segmentId, address, before.get(address));
    if (!state) {
      writes.push({
        delta: -1,
        action: {
          Delete: {
            Key: key,
            ConditionExpression: '#version = :version',
            ExpressionAttributeNames: { '#version': 'version' },
            ExpressionAttributeValues: { ':version': old?.version },
          },
        },
      });
      continue;
    }
    const id = old?.id ?? newIds();
    const item = {
      ...key,
      ...segmentRecipientIdIndexKey(accountId, id),
      entity: SEGMENT_RECIPIENT,
      id,
      user_id: accountId,
      segment_id: segmentId,
      manual: state.manual,
      contact: state.contact,
      created_at: old?.created_at ?? now,
      updated_at: now,
      version: (old?.version ?? 0) + 1,
    };
    writes.push({
      delta: old ? 0 : 1,
      action: {
        Put: {
          Item: item,
          ...(old
            ? {
                ConditionExpression: '#version = :version',
                ExpressionAttributeNames: { '#version': 'version' },
                ExpressionAttributeValues: { ':version': old.version },
              }
            : { ConditionExpression: 'attribute_not_exists(pk)' }),
        },
      },
    });
  }
  return writes;
}

/**
 * Apply changes to one segment's recipients. Each group of up to 99 item writes is one transaction
 * with a counter's change. With `rulesVersion`, the writes are refused (SegmentChanged)
 * once the segment's rules are no longer those the caller evaluated; without it, only when the
 * segment is gone. Changes are idempotent, so a retry after a partial run redoes only what is left.
 */
export async function applyMembershipChanges(
  accountId: number,
  segmentId: number,
  changes: readonly MembershipChange[],
  rulesVersion?: string,
): Promise<ChangeOutcome> {
  if (changes.length === 0) return { manualTaken: [], joined: [] };
  const addresses = [
    ...new Set(changes.map((change) => addressKey(change.kind === 'contact-out' ? change.email : change.entry.email))),
  ];
  for (let attempt = 0; ; attempt++) {
    const { found: before, strayCopies } = await readItems(accountId, segmentId, addresses);
    const after = new Map<string, RecipientState | undefined>(addresses.map((address) => [address, recipientState(before.get(address))]));
    const manualTaken: string[] = [];
    for (const change of changes) applyChange(after, change, manualTaken);
    const newCount = [...after].filter(([address, state]) => state && !before.has(address)).length;
    let nextId = newCount > 0 ? await reserveIds(accountId, SEGMENT_RECIPIENT, newCount) : 0;
    const writes = [...planWrites(accountId, segmentId, before, after, () => nextId++), ...strayDeletes(strayCopies)];
    try {
      for (let start = 0; start < writes.length; start += writesPerTransaction) {
        const group = writes.slice(start, start + writesPerTransaction);
        const delta = group.reduce((sum, write) => sum + write.delta, 0);
        const actions = [...group.map((write) => write.action), countChange(accountId, segmentId, delta, rulesVersion)];
        await transactWrite(actions);
      }
      const joined = [...after].flatMap(([, state]) => (state?.contact ? [{ contactId: state.contact.contact_id, email: state.contact.email }] : []));
      return { manualTaken, joined: joined.filter((joiner) => !wasMatched(before, joiner)) };
    } catch (error) {
      const codes = cancellationCodes(error);
      if (!codes) throw error;
      // Which action refused: the last is the counter's, which holds the segment's rules version.
      if (codes.at(-1) === 'ConditionalCheckFailed') throw new SegmentChanged(segmentId);
      if (attempt + 1 >= maxAttempts) throw error;
      await pause(attempt);
    }
  }
}
