// The queue port on the laptop: an in-process queue that calls the consumer with a real SQSEvent and
// keeps the deployed queue's rules: each queue's batch size and batching window, DelaySeconds, partial batch failure,
// redelivery after a delay, dead-letter after maxReceiveCount receives. Given a directory (the local
// stack gives one under DATA_DIR), each queue keeps its messages in a journal there
// (local-queue-journal.ts): a message is on disk before the sender is answered and removed only once
// its consumer succeeded, so after a crash the messages that were waiting or in flight are delivered
// again, receive counts kept, as SQS would. Without one, messages live in memory and a restart drops them.
// Like an SQS fair queue, messages carry a message group (the account), and the groups with the fewest
// messages in flight are served first (fair-groups.ts).
// Over 300 lines on purpose: every rule above reads and writes one queue's state (waiting, in flight,
// receive counts, timers), kept in one module so no rule can see it half-changed; its settings and
// their defaults are in local-queue-settings.ts.
import { randomUUID } from 'node:crypto';
import { standIn } from '../aws-call-watch';
import { FairGroups } from './fair-groups';
import { openQueueJournal, type QueueJournal } from './local-queue-journal';
import { toRecord, type LocalMessage } from './local-message';
import { localQueueDefaults, type DeadLetter, type LocalQueueSettings, type QueueConsumer } from './local-queue-settings';
import { queueBatchingWindowSeconds, queueBatchSizes, queueMaxReceiveCounts, queueNames, type QueueName } from './queues';

/** Messages not yet visible: sent with a delay, or failed and waiting for their redelivery. */
interface Waiting {
  messages: LocalMessage[];
  timer: NodeJS.Timeout;
}

interface QueueState {
  /** Every message not yet deleted or dead-lettered (pending, in flight or waiting), in the order sent. */
  live: Map<string, LocalMessage>;
  journal: QueueJournal | undefined;
  /** Visible messages not yet taken, by message group. */
  pending: FairGroups;
  waiting: Set<Waiting>;
  /** Since when visible messages wait for a fuller batch (the batching window), and the timer that ends the wait. */
  gathering: { since: number; timer: NodeJS.Timeout | undefined } | undefined;
  inFlight: number;
  pumpScheduled: boolean;
  deadLetters: DeadLetter[];
}

let settings: LocalQueueSettings = { ...localQueueDefaults };
const states = new Map<QueueName, QueueState>();
const consumers = new Map<QueueName, QueueConsumer>();
/** Callers of localQueueIdle: for one queue, or (undefined) for all of them. */
let idleWaiters: Array<{ queue: QueueName | undefined; resolve: () => void }> = [];
/** False while stopping: failures of the last batches are not scheduled for redelivery. */
let redelivering = true;
/** True while a stop takes the last messages before the journals close: they are kept, not delivered. */
let closing = false;

function stateOf(queue: QueueName): QueueState {
  let state = states.get(queue);
  if (!state) {
    state = { live: new Map(), journal: undefined, pending: new FairGroups(), waiting: new Set(), gathering: undefined, inFlight: 0, pumpScheduled: false, deadLetters: [] };
    states.set(queue, state);
  }
  return state;
}

function isStateIdle(state: QueueState): boolean {
  return state.pending.size === 0 && state.inFlight === 0 && state.waiting.size === 0;
}

function isIdle(queue: QueueName | undefined): boolean {
  if (queue !== undefined) {
    const state = states.get(queue);
    return state === undefined || isStateIdle(state);
  }
  return [...states.values()].every(isStateIdle);
}

function notifyIfIdle(): void {
  const idle = idleWaiters.filter((waiter) => isIdle(waiter.queue));
  if (idle.length === 0) return;
  idleWaiters = idleWaiters.filter((waiter) => !idle.includes(waiter));
  for (const waiter of idle) waiter.resolve();
}

/** Change the queue's rules (tests shorten the redelivery delay); unset fields keep their value. */
export function configureLocalQueue(changes: Partial<LocalQueueSettings>): void {
  const previousDirectory = settings.directory;
  settings = { ...settings, ...changes };
  if (settings.directory !== undefined && settings.directory !== previousDirectory) openJournals(settings.directory);
}

/**
 * Open every queue's journal in `directory` and take back the messages it holds: delivered again at
 * once (whoever had them in flight is gone) or when the delay they were sent with ends, except those
 * already received `maxReceiveCount` times, which go to the dead-letter list as SQS would move them.
 * Register the consumers first.
 */
function openJournals(directory: string): void {
  for (const queue of queueNames) {
    const state = stateOf(queue);
    state.journal?.close();
    const opened = openQueueJournal(directory, queue, () => state.live.values(), (line) => settings.log(line));
    state.journal = opened.journal;
    state.deadLetters.push(...opened.deadLetters);
    const restored: LocalMessage[] = [];
    for (const message of opened.messages) {
      if (state.live.has(message.messageId)) continue;
      state.live.set(message.messageId, message);
      if (message.receiveCount < maxReceivesOf(queue)) restored.push(message);
      else moveToDeadLetters(queue, state, message, 'still in flight when the queue stopped');
    }
    const now = Date.now();
    for (const message of restored) makeVisibleAfter(queue, state, [message], (message.visibleAt ?? now) - now);
  }
}

function moveToDeadLetters(queue: QueueName, state: QueueState, message: LocalMessage, reason: string): void {
  const letter: DeadLetter = { messageId: message.messageId, body: message.body, receiveCount: message.receiveCount, reason, at: new Date() };
  state.journal?.recordDeadLetter(letter);
  state.live.delete(message.messageId);
  state.deadLetters.push(letter);
  settings.log(`queue ${queue}: message ${message.messageId} moved to the dead-letter list after ${message.receiveCount} receives (${reason})`);
}

/**
 * Receives before a message of `queue` dead-letters: the queue's own count where it has one (as its
 * redrive policy says deployed), else the settings' (tests lower it).
 */
function maxReceivesOf(queue: QueueName): number {
  return queueMaxReceiveCounts[queue] ?? settings.maxReceiveCount;
}

/** Set the consumer of a queue; returns a function that removes it again. */
export function registerLocalConsumer(queue: QueueName, consumer: QueueConsumer): () => void {
  consumers.set(queue, consumer);
  return () => {
    if (consumers.get(queue) === consumer) consumers.delete(queue);
  };
}

/** Messages that failed `maxReceiveCount` times, oldest first. */
export function localDeadLetters(queue: QueueName): readonly DeadLetter[] {
  return stateOf(queue).deadLetters;
}

/** Resolves once no message of `queue` (of any queue when left out) is pending, in flight or waiting for redelivery. */
export function localQueueIdle(queue?: QueueName): Promise<void> {
  if (isIdle(queue)) return Promise.resolve();
  return new Promise((resolve) => idleWaiters.push({ queue, resolve }));
}

/** Make messages visible once `delayMs` has passed (at once when it has). */
function makeVisibleAfter(queue: QueueName, state: QueueState, messages: LocalMessage[], delayMs: number): void {
  if (delayMs <= 0) {
    state.pending.add(messages);
    schedulePump(queue, state);
    return;
  }
  const waiting: Waiting = {
    messages,
    timer: setTimeout(() => {
      state.waiting.delete(waiting);
      state.pending.add(messages);
      schedulePump(queue, state);
    }, delayMs),
  };
  state.waiting.add(waiting);
}

/**
 * Accept messages; they are delivered shortly after, in batches, like a Lambda polling SQS, or, as
 * SQS DelaySeconds, no sooner than `delaySeconds` from now. `group` is the message group (SQS
 * MessageGroupId) of all of them.
 */
export function enqueueLocal(queue: QueueName, bodies: string[], group?: string, delaySeconds = 0): void {
  // SQS SendMessageBatch, as deployed (shared/queue/aws-queue.ts), for a test that watches the calls.
  standIn({ service: 'sqs', operation: 'SendMessageBatch', input: { Queue: queue } }, () => enqueue(queue, bodies, group, delaySeconds));
}

function enqueue(queue: QueueName, bodies: string[], group: string | undefined, delaySeconds: number): void {
  const state = stateOf(queue);
  const sentAt = Date.now();
  const visibleAt = delaySeconds > 0 ? { visibleAt: sentAt + delaySeconds * 1000 } : {};
  const messages: LocalMessage[] = bodies.map((body) => ({ messageId: randomUUID(), body, group, receiveCount: 0, sentAt, ...visibleAt }));
  // On disk before the sender hears that they were accepted.
  state.journal?.recordSent(messages);
  for (const message of messages) state.live.set(message.messageId, message);
  makeVisibleAfter(queue, state, messages, delaySeconds * 1000);
}

/** A message taken off a local queue by `takeLocalMessages`. */
export interface TakenMessage {
  messageId: string;
  body: string;
  group: string | undefined;
  /** What is left of the delay it was sent with, in whole seconds (0 when it was visible). */
  delaySeconds: number;
}

/**
 * Remove and return the messages of `queue` that no consumer holds (visible or still delayed), in
 * the order they were sent: a test then plays the consumer, on a clock of its own, instead of
 * waiting out their delays.
 */
export function takeLocalMessages(queue: QueueName): TakenMessage[] {
  const state = stateOf(queue);
  stopGathering(state);
  const taken = state.pending.takeAll();
  for (const waiting of state.waiting) {
    clearTimeout(waiting.timer);
    taken.push(...waiting.messages);
  }
  state.waiting.clear();
  taken.sort((a, b) => a.sentAt - b.sentAt);
  state.journal?.recordDeleted(taken.map((message) => message.messageId));
  for (const message of taken) state.live.delete(message.messageId);
  notifyIfIdle();
  const now = Date.now();
  return taken.map((message) => ({ messageId: message.messageId, body: message.body, group: message.group, delaySeconds: Math.max(0, Math.ceil(((message.visibleAt ?? now) - now) / 1000)) }));
}

/**
 * Wait for batches in flight (at most `timeoutMs`), then drop everything in memory and restore the
 * defaults. Messages kept in a journal stay there for the next start. `beforeClose` runs once no batch
 * is in flight and before the journals close: what it sends (the SES sink's last events) is kept for
 * the next start, not delivered.
 */
export async function stopLocalQueues(timeoutMs = 5_000, beforeClose?: () => Promise<void>): Promise<void> {
  redelivering = false;
  for (const state of states.values()) {
    for (const waiting of state.waiting) clearTimeout(waiting.timer);
    state.waiting.clear();
    stopGathering(state);
    state.pending.takeAll();
  }
  const inFlight = [...states.values()].some((state) => state.inFlight > 0);
  if (inFlight) {
    await Promise.race([localQueueIdle(), new Promise((done) => setTimeout(done, timeoutMs).unref())]);
  }
  if (beforeClose) {
    closing = true;
    try {
      await beforeClose();
    } finally {
      closing = false;
    }
    for (const state of states.values()) {
      stopGathering(state);
      state.pending.takeAll();
    }
  }
  for (const state of states.values()) state.journal?.close();
  states.clear();
  settings = { ...localQueueDefaults };
  redelivering = true;
  notifyIfIdle();
}

function schedulePump(queue: QueueName, state: QueueState): void {
  if (state.pumpScheduled) return;
  state.pumpScheduled = true;
  // Deferred so messages sent in one tick (a dispatcher's loop) share batches.
  setImmediate(() => {
    state.pumpScheduled = false;
    pump(queue, state);
  });
}

/**
 * True while a batch short of `batchSize` should wait for more messages: Lambda's poller gathers for
 * up to the queue's batching window, then invokes with what it has. A timer pumps again when it ends.
 */
function gatheringMore(queue: QueueName, state: QueueState, batchSize: number): boolean {
  const windowMs = Math.min((queueBatchingWindowSeconds[queue] ?? 0) * 1000, settings.maxBatchingWindowMs);
  if (state.pending.size >= batchSize || windowMs <= 0) return false;
  const now = Date.now();
  state.gathering ??= { since: now, timer: undefined };
  const left = state.gathering.since + windowMs - now;
  if (left <= 0) return false;
  state.gathering.timer ??= setTimeout(() => {
    if (state.gathering) state.gathering.timer = undefined;
    pump(queue, state);
  }, left);
  return true;
}

function stopGathering(state: QueueState): void {
  if (state.gathering?.timer) clearTimeout(state.gathering.timer);
  state.gathering = undefined;
}

function pump(queue: QueueName, state: QueueState): void {
  if (closing) return;
  const batchSize = Math.min(settings.batchSize, queueBatchSizes[queue]);
  while (state.inFlight < settings.concurrency && state.pending.size > 0) {
    if (gatheringMore(queue, state, batchSize)) return;
    // The next batch starts a window of its own.
    stopGathering(state);
    const batch = state.pending.take(batchSize);
    state.inFlight++;
    void deliver(queue, state, batch).finally(() => {
      state.inFlight--;
      state.pending.done(batch);
      pump(queue, state);
      notifyIfIdle();
    });
  }
}

/** The messages the consumer reported as failed; like Lambda, an unknown identifier fails the whole batch. */
async function failedMessages(queue: QueueName, batch: LocalMessage[]): Promise<{ failed: LocalMessage[]; reason: string }> {
  const consumer = consumers.get(queue);
  if (!consumer) return { failed: batch, reason: `no consumer is registered for queue '${queue}'` };
  try {
    const response = await consumer({ Records: batch.map((message) => toRecord(queue, message)) });
    const identifiers = (response?.batchItemFailures ?? []).map((failure) => failure.itemIdentifier);
    const known = new Set(batch.map((message) => message.messageId));
    if (identifiers.some((identifier) => !known.has(identifier))) {
      return { failed: batch, reason: 'the consumer reported an unknown itemIdentifier' };
    }
    const failedIds = new Set(identifiers);
    return { failed: batch.filter((message) => failedIds.has(message.messageId)), reason: 'reported in batchItemFailures' };
  } catch (error) {
    return { failed: batch, reason: `the consumer threw: ${(error as Error).message}` };
  }
}

async function deliver(queue: QueueName, state: QueueState, batch: LocalMessage[]): Promise<void> {
  const now = Date.now();
  for (const message of batch) {
    message.receiveCount++;
    message.firstReceivedAt ??= now;
  }
  // Recorded before the consumer runs, so a crash during it still counts this receive.
  state.journal?.recordReceived(batch.map((message) => message.messageId), now);
  const { failed, reason } = await failedMessages(queue, batch);
  const failedIds = new Set(failed.map((message) => message.messageId));
  const succeeded = batch.filter((message) => !failedIds.has(message.messageId));
  if (succeeded.length > 0) {
    state.journal?.recordDeleted(succeeded.map((message) => message.messageId));
    for (const message of succeeded) state.live.delete(message.messageId);
  }
  const retries: LocalMessage[] = [];
  for (const message of failed) {
    if (message.receiveCount >= maxReceivesOf(queue)) moveToDeadLetters(queue, state, message, reason);
    else retries.push(message);
  }
  if (!redelivering || retries.length === 0) return;
  // Received together, they become visible again together after the visibility timeout.
  makeVisibleAfter(queue, state, retries, settings.redeliveryDelayMs);
}
