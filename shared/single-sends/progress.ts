// The sending pipeline's view of a single send: reading it for dispatch and delivery, the status
// moves 1 -> 2 -> 3 on its state item (4 is stall-watch.ts's; the statistics counters are
// counters.ts's), and the dispatch progress item (cursor, fan-out and settlement counts) that lets a
// large send resume and tells the last settling step (settling.ts) it is the last.
// Each page and settled batch records the send's progress on it, which the stall watch (stall-watch.ts) reads.
import { currentTime, isoTimestamp } from '../time';
import { singleSendDispatchKey, singleSendKey, singleSendStateKey } from './keys';
import { watchEntry } from './stall-watch';
import { conditionHeld, getItem, updateItem } from '../table/records';
import { dispatchAtAttribute, singleSendStatus, toSingleSend, type SingleSend } from './record';
import { counterShardCreations, countersOf, readCounterShards } from './counters';
import { chosenSubjectAttribute, readSendState, versionAttribute, withState } from './state';
import type { AbProgress, DispatchCursor, DispatchState } from './dispatch-state';
import { abSettingsOf, type AbPhase, type AbSettings } from './ab-test';
import { transactUnlessRefused } from '../table/transactions';

/** A single send as the pipeline reads it, with the time its scheduler job is due (absent for a draft). */
export interface SendingSingleSend extends SingleSend {
  dispatchAt: string | undefined;
  /** The version of its content (raised by each change of it): a cached copy of the same version is current. */
  version: number;
  /** Its A/B subject test, when it has one. */
  abTest: AbSettings | undefined;
}

/** Dispatch items outlive their send for a while (statistics questions), then TTL removes them. */
const retentionSeconds = 180 * 24 * 3600;

export function expiresAt(): number {
  return Math.floor(currentTime().getTime() / 1000) + retentionSeconds;
}

/**
 * The attributes a page or a settled batch sets: the send progressed now (the stall count resets). The
 * watch entry is not moved: the watchdog reads the progress when the entry comes up, so no settled
 * batch writes an index entry. (A send whose entry is on this item from before keeps it unmoved too.)
 */
export function progressedNow(): { expression: string; values: Record<string, unknown> } {
  return {
    expression: 'progress_at = :progressAt, stall_resumes = :noResumes',
    values: { ':progressAt': currentTime().toISOString(), ':noResumes': 0 },
  };
}

/**
 * The send with its design, strongly consistent (a status or deletion just written must be seen):
 * the record, its state item and its counters; undefined when gone. The one read of the design: a
 * caller that needs it again keeps it by `version`, and otherwise reads the state alone (state.ts).
 */
export async function getSendingSingleSend(accountId: number, utr: string): Promise<SendingSingleSend | undefined> {
  const [item, state, shards] = await Promise.all([
    getItem(singleSendKey(accountId, utr), { consistent: true }),
    readSendState(accountId, utr),
    readCounterShards(accountId, [utr], true),
  ]);
  if (!item || !state) return undefined;
  const merged = withState(item, state);
  const dispatchAt = merged[dispatchAtAttribute];
  return {
    ...toSingleSend({ ...merged, ...countersOf(item, state, shards.get(utr) ?? []) }),
    dispatchAt: typeof dispatchAt === 'string' ? dispatchAt : undefined,
    version: Number(state[versionAttribute] ?? 0),
    abTest: abSettingsOf(item),
  };
}

/** Whether the send still exists (a deleted send stops delivering). */
export async function singleSendExists(accountId: number, utr: string): Promise<boolean> {
  return (await readSendState(accountId, utr)) !== undefined;
}

/**
 * Move a ready send to running and open its dispatch progress and its counters, together; false when
 * it was not ready. Only small items: the record with the design is not written.
 */
export async function startDispatch(accountId: number, utr: string, options: { abTest?: boolean; suppressionState?: boolean } = {}): Promise<boolean> {
  // A send stored before the state had its own item adopts one first.
  if (!(await readSendState(accountId, utr))) return false;
  const outcome = await transactUnlessRefused([
    {
      Update: {
        Key: singleSendStateKey(accountId, utr),
        UpdateExpression: 'SET #status = :running, updated_at = :now',
        ConditionExpression: '#status = :ready',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: { ':running': singleSendStatus.running, ':ready': singleSendStatus.ready, ':now': isoTimestamp() },
      },
    },
    ...counterShardCreations(accountId, utr),
    // On the stall watch until it completes or fails.
    { Put: { Item: watchEntry(accountId, utr, currentTime()) } },
    {
      Put: {
        Item: {
          ...singleSendDispatchKey(accountId, utr),
          entity: 'single-send-dispatch',
          page: 0,
          cursor: { source: 0, after: null },
          done: false,
          fanned_batches: 0,
          fanned_recipients: 0,
          settled_batches: 0,
          sent: 0,
          skipped: 0,
          failed: 0,
          uncertain: 0,
          started_at: isoTimestamp(),
          progress_at: currentTime().toISOString(),
          stall_resumes: 0,
          ledger_by_address: true,
          ...(options.suppressionState ? { suppression_state: true } : {}),
          // An A/B test first counts the audience its share is taken from.
          ...(options.abTest ? { ab_phase: 'counting', ab_counted: 0 } : {}),
          expires_at: expiresAt(),
        },
      },
    },
  ]);
  return outcome.ok;
}

/** The dispatch progress of a send; undefined before its dispatch started. */
export async function getDispatchState(accountId: number, utr: string): Promise<DispatchState | undefined> {
  const item = await getItem(singleSendDispatchKey(accountId, utr), { consistent: true });
  if (!item) return undefined;
  const cursor = item.cursor as { source?: unknown; after?: unknown } | undefined;
  const after = cursor?.after;
  return {
    page: Number(item.page ?? 0),
    cursor: { source: Number(cursor?.source ?? 0), after: typeof after === 'number' || typeof after === 'string' ? after : null },
    done: item.done === true,
    fannedBatches: Number(item.fanned_batches ?? 0),
    fannedRecipients: Number(item.fanned_recipients ?? 0),
    settledBatches: Number(item.settled_batches ?? 0),
    sent: Number(item.sent ?? 0),
    skipped: Number(item.skipped ?? 0),
    failed: Number(item.failed ?? 0),
    uncertain: Number(item.uncertain ?? 0),
    completedAt: typeof item.completed_at === 'string' ? item.completed_at : null,
    progressAt: String(item.progress_at ?? item.started_at ?? ''),
    stallResumes: Number(item.stall_resumes ?? 0),
    ledgerByAddress: item.ledger_by_address === true,
    suppressionState: item.suppression_state === true,
    ...(typeof item.ab_phase === 'string' ? { ab: abProgressOf(item) } : {}),
  };
}

const textOrNull = (value: unknown) => (typeof value === 'string' ? value : null);

function abProgressOf(item: Record<string, unknown>): AbProgress {
  return {
    phase: item.ab_phase as AbPhase,
    counted: Number(item.ab_counted ?? 0),
    testSize: Number(item.ab_test_size ?? 0),
    decideAt: textOrNull(item.ab_decide_at),
    winner: typeof item.ab_winner === 'number' ? item.ab_winner : null,
    decidedAt: textOrNull(item.ab_decided_at),
    skippedReason: textOrNull(item.ab_skipped_reason),
  };
}

/**
 * Record one fanned-out page: the new cursor and what was sent to the queue, conditioned on the page
 * number the dispatcher read, so two dispatchers racing on one send cannot both advance it. False
 * when another run already recorded this page (the caller stops).
 */
export async function saveDispatchPage(
  accountId: number,
  utr: string,
  page: { expectedPage: number; cursor: DispatchCursor; batches: number; recipients: number; done: boolean; ab?: AbPageChange },
): Promise<boolean> {
  const progressed = progressedNow();
  const ab = abPageChange(page.ab);
  return conditionHeld(
    updateItem({
      Key: singleSendDispatchKey(accountId, utr),
      UpdateExpression: `SET #page = :next, #cursor = :cursor, #done = :done, ${progressed.expression}${ab.set} ADD fanned_batches :batches, fanned_recipients :recipients`,
      ConditionExpression: `#page = :expected${ab.condition}`,
      ExpressionAttributeNames: { '#page': 'page', '#cursor': 'cursor', '#done': 'done', ...ab.names },
      ExpressionAttributeValues: {
        ...progressed.values,
        ...ab.values,
        ':next': page.expectedPage + 1,
        ':expected': page.expectedPage,
        ':cursor': page.cursor,
        ':done': page.done,
        ':batches': page.batches,
        ':recipients': page.recipients,
      },
    }),
  );
}

/** What a page of an A/B send changes beside its cursor: only in the phase it was read in, and what it sets. */
export interface AbPageChange {
  phase: AbPhase;
  set: Partial<Record<'ab_phase' | 'ab_counted' | 'ab_test_size' | 'ab_skipped_reason' | 'ab_decided_at', string | number>>;
}

function abPageChange(change: AbPageChange | undefined): { set: string; condition: string; names: Record<string, string>; values: Record<string, unknown> } {
  if (!change) return { set: '', condition: '', names: {}, values: {} };
  const entries = Object.entries(change.set);
  return {
    set: entries.map((_, i) => `, #ab${i} = :ab${i}`).join(''),
    condition: ' AND ab_phase = :abPhase',
    names: Object.fromEntries(entries.map(([name], i) => [`#ab${i}`, name])),
    values: { ':abPhase': change.phase, ...Object.fromEntries(entries.map(([, value], i) => [`:ab${i}`, value])) },
  };
}

/**
 * The test's mails have all settled: its wait runs until `decideAt`. The stall watch counts the send
 * as heard of then (the watchdog reads it when its entry comes up), so a wait of hours is no stall.
 * False when it was recorded already or the phase moved on.
 */
export function startAbWait(accountId: number, utr: string, decideAt: Date): Promise<boolean> {
  return conditionHeld(
    updateItem({
      Key: singleSendDispatchKey(accountId, utr),
      UpdateExpression: 'SET ab_decide_at = :decideAt',
      ConditionExpression: 'ab_phase = :waiting AND attribute_not_exists(ab_decide_at)',
      ExpressionAttributeValues: { ':decideAt': decideAt.toISOString(), ':waiting': 'waiting' },
    }),
  );
}

/**
 * Record the subject the rest of the audience gets, with the move out of `from` (`counting` when the
 * test is skipped, `waiting` when a winner was chosen), together with the send's subject and a new
 * content version, so every container mails the rest with it. Exactly one caller moves it: false
 * when the phase moved on meanwhile (or the send is not running).
 */
export async function chooseAbSubject(
  accountId: number,
  utr: string,
  choice: { from: 'counting' | 'waiting'; subject: string; winner: number | null; expectedPage: number; set?: AbPageChange['set']; cursor?: DispatchCursor },
): Promise<boolean> {
  const now = currentTime();
  const progressed = progressedNow();
  const change = abPageChange({
    phase: choice.from,
    set: { ab_phase: choice.winner === null ? 'skipped' : 'winner_sent', ab_decided_at: now.toISOString(), ...choice.set },
  });
  const outcome = await transactUnlessRefused([
    {
      Update: {
        Key: singleSendDispatchKey(accountId, utr),
        // The page moves too, so a run that read the phase before this one records nothing more of it.
        UpdateExpression: `SET #page = :next, ${progressed.expression}${change.set}${choice.winner === null ? '' : ', ab_winner = :winner'}${choice.cursor ? ', #cursor = :cursor' : ''}`,
        ConditionExpression: `#page = :expected${change.condition}`,
        ExpressionAttributeNames: { '#page': 'page', ...change.names, ...(choice.cursor ? { '#cursor': 'cursor' } : {}) },
        ExpressionAttributeValues: {
          ...progressed.values,
          ...change.values,
          ...(choice.cursor ? { ':cursor': choice.cursor } : {}),
          ':next': choice.expectedPage + 1,
          ':expected': choice.expectedPage,
          ...(choice.winner === null ? {} : { ':winner': choice.winner }),
        },
      },
    },
    {
      Update: {
        Key: singleSendStateKey(accountId, utr),
        UpdateExpression: 'SET #subject = :subject ADD #version :one',
        ConditionExpression: '#status = :running',
        ExpressionAttributeNames: { '#subject': chosenSubjectAttribute, '#version': versionAttribute, '#status': 'status' },
        ExpressionAttributeValues: { ':subject': choice.subject, ':one': 1, ':running': singleSendStatus.running },
      },
    },
  ]);
  return outcome.ok;
}
