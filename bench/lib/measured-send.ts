// One measured single send of the send-path bench (bench/single-send-10k.ts): created through the API,
// watched until its status is 3 with every mail in the sink, with the pipeline's DynamoDB requests, the
// CPU of every process and the heap; and its figures as shares of the yardsticks around it.
import { getHeapStatistics } from 'node:v8';
import type { LocalStack } from '../../infra/local/local-stack';
import { getSingleSend } from '../../shared/single-sends/repository';
import { singleSendStatus } from '../../shared/single-sends/record';
import { getSendState } from '../../shared/single-sends/state';
import { getDispatchState } from '../../shared/single-sends/progress';
import { db } from '../../shared/table/client';
import { cpuMeter, perUnit } from './cpu-meter';
import type { SinkProcess } from './sink-process';
import { cpuTotal, meanOf, type CpuPerUnit, type Yardsticks } from './send-yardsticks';

const seconds = (ms: number) => Math.round(ms / 100) / 10;
const ratio = (value: number) => Math.round(value * 1000) / 1000;

/** The pipeline's DynamoDB requests by command while `on`, from middleware on the document client (added once). */
const counted = { on: false, counts: new Map<string, number>() };
let counting = false;

/**
 * Count the requests from now until `stop()`. The bench's own reads are subtracted by the caller
 * rather than told apart by an AsyncLocalStorage: that would put an async hook on every promise of
 * the pipeline, and its CPU, measured here, with it.
 */
function countRequests(): { counts: Map<string, number>; stop: () => void } {
  if (!counting) {
    counting = true;
    db().middlewareStack.add(
      (next, context) => (args) => {
        if (counted.on) {
          const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
          counted.counts.set(name, (counted.counts.get(name) ?? 0) + 1);
        }
        return next(args);
      },
      { step: 'initialize', name: 'benchCountRequests' },
    );
  }
  counted.counts = new Map();
  counted.on = true;
  return { counts: counted.counts, stop: () => (counted.on = false) };
}

/** The heap in use, from V8 alone: `process.memoryUsage()` also reads the RSS from /proc, about 0.3 ms of the measured thread's CPU a call. */
export const heapUsed = () => getHeapStatistics().used_heap_size;

/** The highest heap in use until `stop()`, sampled every 50 ms. */
function heapPeak(): { stop: () => number } {
  let peak = heapUsed();
  const timer = setInterval(() => (peak = Math.max(peak, heapUsed())), 50);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, heapUsed());
    },
  };
}

export interface SendFigures {
  recipients: number;
  totalMs: number;
  firstMailMs: number | undefined;
  lastMailMs: number | undefined;
  cpu: CpuPerUnit;
  requests: Record<string, number>;
  requestTotal: number;
  peakHeapMb: number;
  triggered: number;
  delivered: number;
  status: number;
  inSink: { addresses: number; mails: number };
}

/** Send to every contact of the type through the API and wait until the send is complete. */
export async function measuredSend(
  stack: LocalStack,
  sink: SinkProcess,
  recipients: number,
  headers: Record<string, string>,
  accountId: number,
  audience: { typeId: number; senderId: number; groupId: number },
): Promise<SendFigures> {
  sink.drain(/^bench-\d{6}@example\.com$/, 50);
  const heap = heapPeak();
  const requests = countRequests();
  const meter = cpuMeter(stack.ports.dynamodb, sink.pid);
  const started = Date.now();
  const form = new URLSearchParams({
    template_id: '2',
    sender_id: String(audience.senderId),
    unsubscribe_group_id: String(audience.groupId),
    single_send_name: 'Bench',
    subject: 'Hello ((first_name))',
    preheader: 'Bench run',
    'recipient_id[0]': `contacts_${audience.typeId}`,
    schedule_type: '0',
  });
  const created = await fetch(`${stack.urls.api}single/send/create`, { method: 'POST', headers, body: form });
  const { message } = (await created.json()) as { message: { utr: string } };
  let firstMailMs: number | undefined;
  let lastMailMs: number | undefined;
  // The bench watches the sink's tally (its own process, no request) until every mail is in it, and
  // only then, every 100 ms, the send's small state item (one GetItem a look, left out of the pipeline's requests)
  // until the last batch settled: reading the whole send every 100 ms cost as much as a tenth of the
  // pipeline's requests, and its CPU was counted as the pipeline's.
  let ownReads = 0;
  let lastLook = Date.now();
  for (;;) {
    const tally = sink.tally;
    if (firstMailMs === undefined && tally.firstAt !== null) firstMailMs = tally.firstAt - started;
    if (lastMailMs === undefined && tally.addresses >= recipients) lastMailMs = tally.lastAt! - started;
    // Once a second before then, so a send that ends short of its recipients ends the wait too.
    if (lastMailMs !== undefined || Date.now() - lastLook >= 1_000) {
      ownReads++;
      lastLook = Date.now();
      if ((await getSendState(accountId, message.utr))?.status === singleSendStatus.completed) break;
    }
    if (Date.now() - started > 30 * 60_000) throw new Error(`not complete after 30 minutes: ${JSON.stringify(await getSendState(accountId, message.utr))}`);
    await new Promise((done) => setTimeout(done, 100));
  }
  // From the create call to the moment the pipeline completed the send (its own `completed_at`), not
  // to when this loop saw it: the sink's tally reaches it every 50 ms and the state is looked at every
  // 100 ms, up to 0.2 s of a 4-second send.
  ownReads++;
  const completedAt = (await getDispatchState(accountId, message.utr))?.completedAt;
  const totalMs = completedAt ? Date.parse(completedAt) - started : Date.now() - started;
  const cpu = perUnit(meter.stop(), recipients);
  const peakHeap = heap.stop();
  requests.stop();
  if (ownReads > 0) requests.counts.set('GetItem', (requests.counts.get('GetItem') ?? 0) - ownReads);
  const inSink = await sink.stopDrain();
  // The last mail may have landed after the send's status turned 3 was last polled for it.
  lastMailMs ??= inSink.lastAt === null ? undefined : inSink.lastAt - started;
  const send = await getSingleSend(accountId, message.utr);
  return {
    recipients,
    totalMs,
    firstMailMs,
    lastMailMs,
    cpu,
    requests: Object.fromEntries([...requests.counts].sort((a, b) => b[1] - a[1])),
    requestTotal: [...requests.counts.values()].reduce((sum, n) => sum + n, 0),
    peakHeapMb: Math.round(peakHeap / 2 ** 20),
    triggered: send.triggered,
    delivered: send.delivered,
    status: send.status,
    inSink: { addresses: inSink.addresses, mails: inSink.mails },
  };
}

/**
 * One send's figures against the mean of the yardsticks taken right before and right after it. The
 * ceiling is CPU per put over the CPU of one SES call and one ledger claim and mark: the share of the
 * put rate the send would reach where the machine's CPU is the limit if a recipient cost nothing else
 * (on a machine whose cores others share, wall-clock rates swing with their load, CPU time much less).
 */
export function sendRun(send: SendFigures, before: Yardsticks, after: Yardsticks) {
  const put = meanOf(before.put, after.put);
  const sink = meanOf(before.sink, after.sink);
  const pair = meanOf(before.pair, after.pair);
  const pairInTransactions = meanOf(before.pairInTransactions, after.pairInTransactions);
  const mailsPerSecond = send.recipients / (send.totalMs / 1000);
  // From the first mail in the sink to the last: the pipeline's steady rate, without the start
  // (API, scheduler poll, first page) and the end (settling, completing, the bench's 100 ms poll).
  const windowMs = (send.lastMailMs ?? send.totalMs) - (send.firstMailMs ?? 0);
  const share = mailsPerSecond / put.perSecond;
  const ceiling = put.cpuMs / (sink.cpuMs + pair.cpuMs);
  const ceilingInTransactions = put.cpuMs / (sink.cpuMs + pairInTransactions.cpuMs);
  return {
    first_mail_seconds: seconds(send.firstMailMs ?? send.totalMs),
    complete_seconds: seconds(send.totalMs),
    mails_per_second: Math.round(mailsPerSecond),
    sink_window_mails_per_second: Math.round(send.recipients / (windowMs / 1000)),
    put_limit: { puts_per_second: Math.round(put.perSecond), cpu_ms: ratio(put.cpuMs) },
    sink_mails_per_second: Math.round(sink.perSecond),
    sink_cpu_ms: ratio(sink.cpuMs),
    ledger_pair: { pairs_per_second: Math.round(pair.perSecond / 2), cpu_ms: ratio(pair.cpuMs) },
    ledger_pair_in_transactions: { pairs_per_second: Math.round(pairInTransactions.perSecond * 12), cpu_ms: ratio(pairInTransactions.cpuMs) },
    share_of_put_limit: ratio(share),
    window_share_of_put_limit: ratio(send.recipients / (windowMs / 1000) / put.perSecond),
    cpu_share_of_put_limit: ratio(put.cpuMs / cpuTotal(send.cpu)),
    ceiling: ratio(ceiling),
    ceiling_in_transactions: ratio(ceilingInTransactions),
    share_of_ceiling: ratio(share / ceiling),
    // The same from the first mail in the sink to the last: without the scheduler's poll and the dispatch before the first mail.
    window_share_of_ceiling: ratio(send.recipients / (windowMs / 1000) / put.perSecond / ceiling),
    share_of_ceiling_in_transactions: ratio(share / ceilingInTransactions),
    // The same share where CPU is the limit: the floor's CPU over the CPU a recipient cost.
    cpu_share_of_ceiling: ratio((sink.cpuMs + pair.cpuMs) / cpuTotal(send.cpu)),
    cpu_per_recipient: send.cpu,
    // Each process's share of the yardsticks right after the send: per put, per SES call, per claim and mark.
    yardstick_cpu_after: { put: after.put.cpu, sink: after.sink.cpu, pair: after.pair.cpu },
    dynamodb_requests_per_recipient: ratio(send.requestTotal / send.recipients),
    dynamodb_requests: send.requests,
    peak_heap_during_send_mb: send.peakHeapMb,
    triggered: send.triggered,
    delivered: send.delivered,
    distinct_addresses_in_sink: send.inSink.addresses,
    sink_mails: send.inSink.mails,
    status: send.status,
  };
}

export type SendRun = ReturnType<typeof sendRun>;
