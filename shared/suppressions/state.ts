// The per-address suppression state: for each address of an account, whether it is on the global
// list, which unsubscribe groups it is in and whether it bounced or complained. Every change of those
// lists writes it in the same transaction (repository.ts, bounces.ts), so a send reads one key per
// recipient instead of one per list. The account's marker says when its states are complete: from
// birth for a new account, after the backfill (backfillStatePage) for one older than this item.
import { isoTimestamp } from '../time';
import { batchGetAll } from '../table/batch';
import { type Key, idSortKey } from '../table/keys';
import { getItem, queryPageAfter, updateItem, type Item } from '../table/records';
import { cancellationCodes, transactWrite, type TransactionAction } from '../table/transactions';
import { bouncedAddressKey, bouncedAddressPartition } from './bounce-keys';
import { globalUnsubscribeAddressKey, globalUnsubscribeAddressPartition, unsubscribeGroupAddressKey, unsubscribeGroupAddressPartition, unsubscribeGroupPartition } from './keys';
import { ADDRESS_SUPPRESSION, addressSuppressionKey, addressSuppressionMarkerKey } from './state-keys';

/** The list a change is made on: the global list, one unsubscribe group, or the bounce and complaint list. */
export type SuppressionSource = { list: 'global' } | { list: 'group'; groupId: number } | { list: 'bounced' };

/** What the state item says of one address. */
export interface AddressState {
  global: boolean;
  groups: ReadonlySet<number>;
  bounced: boolean;
}

/**
 * The state item's update for an address put on (`on`) or taken off a list: one action for the list
 * change's own transaction. Each list is an attribute apart (a flag, or a member of the group set), so
 * changes of different lists never overwrite one another, and a change made twice is the same change.
 */
export function stateChange(accountId: number, email: string, source: SuppressionSource, on: boolean): TransactionAction {
  const Key = addressSuppressionKey(accountId, email);
  const entity = { '#entity': 'entity' };
  if (source.list === 'group') {
    return {
      Update: {
        Key,
        // DELETE of a set's last member removes the attribute: no empty set is ever stored.
        UpdateExpression: `SET #entity = :entity ${on ? 'ADD' : 'DELETE'} #groups :group`,
        ExpressionAttributeNames: { ...entity, '#groups': 'unsubscribe_groups' },
        ExpressionAttributeValues: { ':entity': ADDRESS_SUPPRESSION, ':group': new Set([source.groupId]) },
      },
    };
  }
  const flag = { '#flag': source.list === 'global' ? 'global_unsubscribe' : 'bounced' };
  return {
    Update: on
      ? { Key, UpdateExpression: 'SET #entity = :entity, #flag = :on', ExpressionAttributeNames: { ...entity, ...flag }, ExpressionAttributeValues: { ':entity': ADDRESS_SUPPRESSION, ':on': true } }
      : { Key, UpdateExpression: 'SET #entity = :entity REMOVE #flag', ExpressionAttributeNames: { ...entity, ...flag }, ExpressionAttributeValues: { ':entity': ADDRESS_SUPPRESSION } },
  };
}

function stateOf(item: Item): AddressState {
  const groups = item.unsubscribe_groups;
  return {
    global: item.global_unsubscribe === true,
    groups: groups instanceof Set ? new Set([...groups].map(Number)) : new Set(),
    bounced: item.bounced === true,
  };
}

/**
 * The states of `addresses` (lower-cased keys; an address without an item is on no list): one key per
 * distinct address, 100 to a BatchGetItem. Strongly consistent unless asked otherwise (the send path
 * reads eventually, as it did the lists: repository.ts, ReadConsistency).
 */
export async function addressStatesAmong(accountId: number, addresses: readonly string[], reads: { consistent?: boolean } = {}): Promise<Map<string, AddressState>> {
  const distinct = [...new Set(addresses.map((address) => address.trim().toLowerCase()).filter((address) => address !== ''))];
  const items = await batchGetAll(
    distinct.map((address) => addressSuppressionKey(accountId, address)),
    { consistentRead: reads.consistent ?? true, projection: { expression: 'sk, #global, #groups, #bounced', names: { '#global': 'global_unsubscribe', '#groups': 'unsubscribe_groups', '#bounced': 'bounced' } } },
  );
  return new Map(items.map((item) => [String(item.sk), stateOf(item)]));
}

/** Whether the state bars mail of a send in `groupId` (none: only the global list counts), bounces included when asked. */
function bars(state: AddressState, groupId: number | null, withBounces: boolean): boolean {
  return state.global || (groupId !== null && state.groups.has(groupId)) || (withBounces && state.bounced);
}

/** Who among some addresses (lower-cased) may not be mailed by a send in a group, and who of those unsubscribed. */
export interface Suppressions {
  /** Unsubscribed globally or from the group, bounced or complained: not to be mailed. */
  barred: Set<string>;
  /** Those of `barred` who unsubscribed (globally or from the group), as suppressedAmong answers. */
  unsubscribed: Set<string>;
}

/** The addresses among `addresses` a send in `groupId` (none: only the global list counts) may not mail, from one read of their states. */
export async function suppressionsByState(accountId: number, addresses: readonly string[], groupId: number | null, reads: { consistent?: boolean } = {}): Promise<Suppressions> {
  const states = [...(await addressStatesAmong(accountId, addresses, reads))];
  return {
    barred: new Set(states.filter(([, state]) => bars(state, groupId, true)).map(([address]) => address)),
    unsubscribed: new Set(states.filter(([, state]) => bars(state, groupId, false)).map(([address]) => address)),
  };
}

// The account's marker

/** `complete`: every address's state is there; `building`: its backfill job runs; `absent`: neither yet. */
export type StateMarker = { status: 'complete' } | { status: 'building'; jobId: number } | { status: 'absent' };

export async function stateMarker(accountId: number): Promise<StateMarker> {
  const item = await getItem(addressSuppressionMarkerKey(accountId), { consistent: true });
  if (!item) return { status: 'absent' };
  if (item.status === 'complete') return { status: 'complete' };
  return { status: 'building', jobId: Number(item.job_id) };
}

/** The marker of an account created with no list entries: complete from birth (for its creation's transaction). */
export function completeMarkerPut(accountId: number): TransactionAction {
  return { Put: { Item: { ...addressSuppressionMarkerKey(accountId), entity: `${ADDRESS_SUPPRESSION}-marker`, status: 'complete', completed_at: isoTimestamp() }, ConditionExpression: 'attribute_not_exists(pk)' } };
}

/**
 * The marker naming the backfill job `jobId` (for the job's creation's transaction): refused when a
 * marker exists, unless it names `replacing` (a backfill that ended without completing), so two
 * starters never start two backfills.
 */
export function buildingMarkerPut(accountId: number, jobId: number, replacing?: number): TransactionAction {
  return {
    Put: {
      Item: { ...addressSuppressionMarkerKey(accountId), entity: `${ADDRESS_SUPPRESSION}-marker`, status: 'building', job_id: jobId, started_at: isoTimestamp() },
      ...(replacing === undefined
        ? { ConditionExpression: 'attribute_not_exists(pk)' }
        : { ConditionExpression: '#status = :building AND job_id = :replacing', ExpressionAttributeNames: { '#status': 'status' }, ExpressionAttributeValues: { ':building': 'building', ':replacing': replacing } }),
    },
  };
}

/** The backfill's last step: the account's states are complete (a send dispatched from now on reads them alone). */
export async function markStateComplete(accountId: number): Promise<void> {
  await updateItem({
    Key: addressSuppressionMarkerKey(accountId),
    UpdateExpression: 'SET #entity = :entity, #status = :complete, completed_at = :now',
    ExpressionAttributeNames: { '#entity': 'entity', '#status': 'status' },
    ExpressionAttributeValues: { ':entity': `${ADDRESS_SUPPRESSION}-marker`, ':complete': 'complete', ':now': isoTimestamp() },
  });
}

// The backfill: the states of entries stored before the state item existed

/**
 * Where the backfill stands: `global` (the global list), `group:<id>` (one group's addresses) or
 * `bounced`, and the last address done in it (null at its start).
 */
export interface BackfillPosition {
  phase: string;
  after: string | number | null;
}

export const backfillStart: BackfillPosition = { phase: 'global', after: null };

/** Entries per transaction: a condition check and an update each, within DynamoDB's 100 actions. */
const entriesPerTransaction = 50;
const maxConflictRetries = 5;

interface PhaseSource {
  partition: string;
  source: SuppressionSource;
  listItemKey: (address: string) => Key;
}

function phaseSource(accountId: number, phase: string): PhaseSource | undefined {
  if (phase === 'global') return { partition: globalUnsubscribeAddressPartition(accountId), source: { list: 'global' }, listItemKey: (address) => globalUnsubscribeAddressKey(accountId, address) };
  if (phase === 'bounced') return { partition: bouncedAddressPartition(accountId), source: { list: 'bounced' }, listItemKey: (address) => bouncedAddressKey(accountId, address) };
  const group = /^group:(\d+)$/.exec(phase);
  if (!group) return undefined;
  const groupId = Number(group[1]);
  return { partition: unsubscribeGroupAddressPartition(accountId, groupId), source: { list: 'group', groupId }, listItemKey: (address) => unsubscribeGroupAddressKey(accountId, groupId, address) };
}

/** The phase after `phase`: the global list, then each group in id order, then the bounces. */
async function nextPhase(accountId: number, phase: string): Promise<string | null> {
  if (phase === 'bounced') return null;
  const group = /^group:(\d+)$/.exec(phase);
  const after = group ? idSortKey(Number(group[1])) : undefined;
  const { items } = await queryPageAfter({ partition: unsubscribeGroupPartition(accountId), ...(after === undefined ? {} : { after }), limit: 1 });
  const next = items[0];
  return next ? `group:${Number(next.id)}` : 'bounced';
}

function pause(attempt: number): Promise<void> {
  return new Promise((resume) => setTimeout(resume, Math.min(1000, 25 * 2 ** attempt)));
}

/**
 * Write the states of these entries, each in one transaction with a check that its list item still
 * exists: an entry deleted after it was read (its delete cleared the state already) is left out, so
 * it never stays suppressed. Answers how many were written.
 */
async function writeStates(accountId: number, from: PhaseSource, addresses: string[]): Promise<number> {
  let written = 0;
  for (let start = 0; start < addresses.length; start += entriesPerTransaction) {
    let remaining = addresses.slice(start, start + entriesPerTransaction);
    for (let conflicts = 0; remaining.length > 0; ) {
      const actions = remaining.flatMap((address): TransactionAction[] => [
        { ConditionCheck: { Key: from.listItemKey(address), ConditionExpression: 'attribute_exists(pk)' } },
        stateChange(accountId, address, from.source, true),
      ]);
      try {
        await transactWrite(actions);
        written += remaining.length;
        break;
      } catch (error) {
        const codes = cancellationCodes(error);
        if (!codes) throw error;
        const gone = new Set(remaining.filter((_, i) => codes[2 * i] === 'ConditionalCheckFailed'));
        if (gone.size === 0) {
          // A concurrent change of one of the states (a list change meeting this transaction): again.
          if (++conflicts > maxConflictRetries) throw error;
          await pause(conflicts);
        }
        remaining = remaining.filter((address) => !gone.has(address));
      }
    }
  }
  return written;
}

/**
 * One page of the backfill from `position`: up to `limit` entries of its list get their state. Answers
 * the states written and where to go on from (null: every list is done; the caller sets the marker).
 */
export async function backfillStatePage(accountId: number, position: BackfillPosition, limit = 200): Promise<{ written: number; next: BackfillPosition | null }> {
  const from = phaseSource(accountId, position.phase);
  if (!from) throw new Error(`Unknown suppression state backfill phase ${position.phase}`);
  const after = typeof position.after === 'string' ? position.after : undefined;
  const { items } = await queryPageAfter({ partition: from.partition, ...(after === undefined ? {} : { after }), limit });
  const addresses = items.map((item) => String(item.sk));
  const written = await writeStates(accountId, from, addresses);
  if (items.length === limit) return { written, next: { phase: position.phase, after: addresses[addresses.length - 1] ?? null } };
  const phase = await nextPhase(accountId, position.phase);
  return { written, next: phase === null ? null : { phase, after: null } };
}
