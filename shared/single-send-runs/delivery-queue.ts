// The delivery queue's consumer: each message is one batch of one send. Delivers it, settles it once
// it is finished (which may complete the send), and answers which messages SQS must redeliver.
import { remainingOf, timeLeft } from '../time-left';
import type { Context, SQSBatchResponse, SQSEvent, SQSRecord } from 'aws-lambda';
import { getSendingSingleSend } from '../single-sends/progress';
import { settleDeliveryBatch } from '../single-sends/settling';
import { parkBatch } from '../single-sends/parked-batches';
import { singleSendStatus } from '../single-sends/record';
import { getSendState } from '../single-sends/state';
import { consumeRecords, RedeliverMessage } from '../queue/consumer';
import { sendMessages } from '../queue/queue';
import { deliverToRecipients, watchForPause, type DeliveryOutcome } from '../delivery/deliver';
import { deliveryMessageBody, parseDeliveryMessage, type DeliveryMessage, type SettledBefore } from '../delivery/delivery-message';
import { singleSendContent, testVariantContent, type SendContent } from '../delivery/send-content';
import { abCounterNames } from '../single-sends/ab-test';
import { encodeSendRef } from '../ledger/send-ref';
import { finishIfComplete } from './send-summary';
import { sendingSettings } from '../delivery/settings';
import { withTenant } from '../tenants/sending-tenant';
import { getAccountTenant } from '../tenants/repository';

type RecordResult = 'done' | 'retry';

/** The message group of a re-queued batch: its send's account, as the dispatcher sent it. */
function deliveryGroup(message: DeliveryMessage): { group: string } {
  return { group: String(message.ref.accountId) };
}

/** The content of a message's send with its tenant, resolved once per invocation (by send and content version). */
type ContentCache = Map<string, SendContent | undefined>;

/** Sends whose content (with its design) a container keeps: the latest read. */
const keptContents = 16;

/** The container's copy of each send's content, by send, with the version it was read at. */
const contents = new Map<string, { version: number; content: SendContent }>();

/**
 * Reads of a send's content under way, by send and version: invocations side by side in one process
 * (the local queue runs two) share one instead of each reading the design.
 */
const contentReads = new Map<string, Promise<SendContent | undefined>>();

/** The send's content at `version`: read (design and all) once per container and version, then kept. */
function sendContent(accountId: number, utr: string, version: number): Promise<SendContent | undefined> {
  const key = `${accountId}#${utr}`;
  const kept = contents.get(key);
  if (kept?.version === version) return Promise.resolve(kept.content);
  const readKey = `${key}#${version}`;
  let read = contentReads.get(readKey);
  if (!read) {
    read = readSendContent(accountId, utr, key).finally(() => contentReads.delete(readKey));
    contentReads.set(readKey, read);
  }
  return read;
}

async function readSendContent(accountId: number, utr: string, key: string): Promise<SendContent | undefined> {
  const singleSend = await getSendingSingleSend(accountId, utr);
  if (!singleSend || singleSend.status < singleSendStatus.running) return undefined;
  const content = singleSendContent(singleSend, singleSend.abTest);
  contents.delete(key);
  // The earliest read goes first.
  if (contents.size >= keptContents) contents.delete(contents.keys().next().value as string);
  contents.set(key, { version: singleSend.version, content });
  return content;
}

/**
 * The content to mail the batch with; undefined when the send is gone (nothing is mailed), 'paused'
 * when it is paused for its reputation (the batch waits for the resume). Before each batch the send's
 * small state item is read (a send deleted since the last batch stops delivering, a paused one
 * waits); its design is read only when this container has not kept its current version.
 */
async function contentOf(message: DeliveryMessage, cache: ContentCache): Promise<SendContent | 'paused' | undefined> {
  const { ref } = message;
  if (ref.kind !== 'single-send') {
    // Automation steps call deliverToRecipients with their step's content; they do not use this queue.
    throw new Error(`The delivery queue carries single sends only, got a ${ref.kind} reference`);
  }
  // Both small reads every message makes, side by side: the account's tenant is read again for each
  // message (a tenant made or changed mid-send applies from the next), beside the send's state.
  const [state, tenant] = await Promise.all([getSendState(ref.accountId, ref.utr), getAccountTenant(ref.accountId)]);
  if (!state || state.status < singleSendStatus.running) return undefined;
  if (state.running && state.paused) return 'paused';
  const key = `${encodeSendRef(ref)}#${state.version}`;
  if (!cache.has(key)) {
    const content = await sendContent(ref.accountId, ref.utr, state.version);
    cache.set(key, content && withTenant(tenant, content));
  }
  return cache.get(key);
}

type Tally = Required<SettledBefore>;

/** Count the batch as settled (once), its mails with it, and complete the send if it was the last. */
async function settle(message: DeliveryMessage, tally: Tally): Promise<void> {
  const { ref, batchId } = message;
  if (ref.kind !== 'single-send' || batchId === undefined) return;
  // 'delivered' comes from SES's delivery events (the local sink publishes them too), once per recipient;
  // a batch of an A/B test's share counts its mails toward its subject too, in the same update.
  const variant = message.variant === undefined ? {} : { [abCounterNames(message.variant).recipients]: tally.sent };
  await settleDeliveryBatch(ref.accountId, ref.utr, encodeSendRef(ref), batchId, tally, { triggered: tally.sent, ...variant });
  await finishIfComplete(ref.accountId, ref.utr);
}

function receiveCount(record: SQSRecord): number {
  return Number(record.attributes?.ApproximateReceiveCount ?? 1) || 1;
}

/** The recipients not yet reached continue in a fresh message of the same batch, carrying the counts so far. */
async function continueInFreshMessage(message: DeliveryMessage, recipients: DeliveryMessage['recipients'], tally: Tally): Promise<void> {
  await sendMessages('deliveries', [deliveryMessageBody({ ...message, recipients, settledBefore: tally })], deliveryGroup(message));
}

/** Time kept in hand when the Lambda's time runs short: enough to settle and re-queue what is left. */
const reserveMs = 15_000;

async function processRecord(record: SQSRecord, cache: ContentCache, keepGoing: () => boolean): Promise<RecordResult> {
  const message = parseDeliveryMessage(record.body);
  const earlier = message.settledBefore ?? { sent: 0, skipped: 0, failed: 0, uncertain: 0 };
  const sendContent = await contentOf(message, cache);
  // A batch of an A/B test's share goes with its subject.
  const content = message.variant === undefined || typeof sendContent !== 'object' ? sendContent : testVariantContent(sendContent, message.variant);
  if (!content) return 'done';
  const { accountId, utr } = message.ref as { accountId: number; utr: string };
  if (content === 'paused') {
    // Unmailed and unsettled (so the send cannot complete): the resume queues it again as it is.
    await parkBatch(accountId, utr, message.batchId ?? record.messageId, record.body);
    // Resumed meanwhile (its resume may have listed the parked batches before this one): goes on now.
    // Should the resume queue it too, the ledger and the settle marker make the copy mail and count nothing.
    if ((await getSendState(accountId, utr))?.paused === false) await sendMessages('deliveries', [deliveryMessageBody(message)], deliveryGroup(message));
    return 'done';
  }
  // Its claims carry the batch and this receive: a later receive knows them for a dead run's.
  const batch = message.batchId === undefined ? undefined : { batchId: message.batchId, messageId: record.messageId, receive: receiveCount(record) };
  // A pause that lands while the batch is mailed stops it there: the rest continues in a fresh
  // message of the batch, which finds the send paused and is parked.
  const watch = watchForPause(async () => (await getSendState(accountId, utr))?.paused === true);
  const goOn = () => keepGoing() && !watch.paused();
  let outcome: DeliveryOutcome;
  try {
    outcome = await deliverToRecipients(message.ref, content, message.recipients, { keepGoing: goOn, ...(batch ? { batch } : {}), ...(message.ledgerByAddress ? { ledgerByAddress: true } : {}), ...(message.suppressionState ? { suppressionState: true } : {}) });
  } finally {
    watch.stop();
  }
  const lastReceive = receiveCount(record) >= sendingSettings().maxReceives;
  // Uncertain recipients are settled as such: never tried again, counted apart from those mailed.
  const tally: Tally = {
    sent: earlier.sent + outcome.sent,
    skipped: earlier.skipped + outcome.skipped,
    failed: earlier.failed,
    uncertain: (earlier.uncertain ?? 0) + outcome.uncertain,
  };
  if (outcome.failed.length === 0 && outcome.deferred.length === 0) {
    await settle(message, tally);
    return 'done';
  }
  // Its turn or the Lambda's time over, or paused: the recipients not reached (never claimed)
  // continue at once in a fresh message of the same batch, carrying this run's counts, rather than
  // waiting for the whole message's redelivery. Unless SES throttled them: then the redelivery's
  // wait is the backoff they need.
  if (!goOn() && outcome.failed.length === 0 && !outcome.throttled) {
    await continueInFreshMessage(message, outcome.deferred, tally);
    return 'done';
  }
  if (!lastReceive) return 'retry';
  // Last receive: errors are final (the message goes on to the dead-letter queue for inspection),
  // but throttled recipients are never dropped: they continue in a fresh message of the same batch.
  tally.failed += outcome.failed.length;
  if (outcome.deferred.length > 0) {
    await continueInFreshMessage(message, outcome.deferred, tally);
    return outcome.failed.length > 0 ? 'retry' : 'done';
  }
  await settle(message, tally);
  return 'retry';
}

/** Handle one SQS event: every message is tried; the failed ones are reported for redelivery. */
export function handleDeliveryEvent(event: SQSEvent, context?: Pick<Context, 'getRemainingTimeInMillis'>): Promise<SQSBatchResponse> {
  const cache: ContentCache = new Map();
  const keepGoing = timeLeft(remainingOf(context), { reserveMs });
  return consumeRecords('deliveries', event, undefined, 'delivery message', async (record) => {
    // The turn starts with the first recipient's: the reads before it never use it up, so each turn mails someone.
    let turnEnds: number | undefined;
    const inTurn = () => {
      // A turn (sendingSettings().deliveryTurnMs, 2 s) holds a container for one account at most that long.
      turnEnds ??= Date.now() + sendingSettings().deliveryTurnMs;
      return keepGoing() && Date.now() < turnEnds;
    };
    if ((await processRecord(record, cache, inTurn)) === 'retry') throw new RedeliverMessage('some recipients are still to be delivered');
  });
}
