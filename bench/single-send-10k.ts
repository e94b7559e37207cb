// Measures how long the local stack (`npm start`'s runtime, in process) takes to dispatch and deliver
// one immediate single send to 10,000 contacts: from the API's create call to the send's status 3,
// with every mail in the SES sink. Run: `npx tsx bench/single-send-10k.ts [recipients]`.
// Before the send, on the same DynamoDB Local, it measures the store's raw rate of conditional puts
// at the send path's concurrency: the send's rate is reported as a share of it. The SES sink runs in
// a process of its own (bench/lib/sink-child.ts), so this process's one thread does the pipeline's
// work only, as a deliverer's does where the sink is SES.
import { AsyncLocalStorage } from 'node:async_hooks';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../infra/local/local-stack';
import { startSinkProcess } from './lib/sink-process';
import type { OutgoingMail } from '../shared/mail/mailer';
import { renderMail } from '../shared/rendering/render';
import { findDesignTemplate } from '../shared/templates/repository';
import { conditionalPutRate, ledgerPairRate, sinkRate } from './lib/store-limits';
import { cpuMeter, perUnit } from './lib/cpu-meter';
import { confirmedBenchSender, importBenchContacts } from './lib/send-audience';
import { sendingSettings } from '../shared/delivery/settings';
import { db } from '../shared/table/client';
import { addContactType } from '../shared/contact-types/repository';
import { getSingleSend } from '../shared/single-sends/repository';
import { addUnsubscribeGroup } from '../shared/suppressions/unsubscribe-groups';

const recipients = Number(process.argv[2] ?? 10_000);
const seconds = (ms: number) => Math.round(ms / 100) / 10;
const ratio = (value: number) => Math.round(value * 1000) / 1000;
/** Delivery batches in flight at once (the local queue's concurrency, as the event source mapping's). */
const queueConcurrency = 2;
/** Puts timed for the store's limit (after a warm-up of a quarter as many). */
const limitPuts = Number(process.env.BENCH_LIMIT_PUTS ?? 4_000);

/** A mail like the send's: the same library design, rendered for one reader. */
function sampleMail(): OutgoingMail {
  const design = findDesignTemplate(2);
  if (!design) throw new Error('library design 2 is missing');
  const link = 'https://mail.example.com/api/public/preferences?token=abc.def';
  const mail = renderMail({
    designHtml: design.html_code,
    subject: 'Hello Bench',
    preheader: 'Bench run',
    fields: { first_name: 'Bench', last_name: 'Reader', email: 'bench@example.com', full_name: 'Bench Reader' },
    senderName: 'Bench News',
    senderAddress: '1 Main Street',
    links: { preferences: link, oneClickUnsubscribe: link, openPixel: link },
  });
  return { from: 'Bench News <bench@acme.example>', to: ['bench@example.com'], subject: mail.subject, html: mail.html, text: mail.text, headers: mail.headers };
}

/** Marks the bench's own calls (creating and watching the send), which are not the pipeline's. */
const benchOwn = new AsyncLocalStorage<boolean>();

/** The pipeline's DynamoDB requests by command until `stop()`, from middleware on the document client. */
function countRequests(): { counts: Map<string, number>; stop: () => void } {
  const counts = new Map<string, number>();
  const counting = { on: true };
  db().middlewareStack.add(
    (next, context) => (args) => {
      if (counting.on && !benchOwn.getStore()) {
        const name = String(context.commandName ?? 'unknown').replace(/Command$/, '');
        counts.set(name, (counts.get(name) ?? 0) + 1);
      }
      return next(args);
    },
    { step: 'initialize', name: 'benchCountRequests' },
  );
  return { counts, stop: () => (counting.on = false) };
}

/** The highest heap in use while `sampling` runs, sampled every 50 ms. */
function heapPeak(): { stop: () => number } {
  let peak = process.memoryUsage().heapUsed;
  const timer = setInterval(() => (peak = Math.max(peak, process.memoryUsage().heapUsed)), 50);
  return {
    stop: () => {
      clearInterval(timer);
      return Math.max(peak, process.memoryUsage().heapUsed);
    },
  };
}

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-'));
  const sinkProcess = await startSinkProcess();
  const stack = await startLocalStack({ port: 0, dynamoPort: 0, sesEndpoint: sinkProcess.endpoint, quiet: true, log: () => undefined, dataDir, inMemory: true, queue: { concurrency: queueConcurrency } }).catch(
    async (error: unknown) => {
      await sinkProcess.stop();
      throw error;
    },
  );
  try {
    const accountId = stack.demoAccount.account_id;
    const headers = { PublicKey: stack.demoAccount.public_key, SecretKey: stack.demoAccount.secret_key };

    // Setup (not measured): a contact type of `recipients` contacts, a verified sender, a group.
    const setupStarted = Date.now();
    const type = await addContactType(accountId, 'Bench');
    // Through the CSV import's write path, 500 rows a call, 4 calls at a time: a contacts/add per
    // contact (six round trips each) made the setup of a 100,000-recipient run take longer than the send.
    const emails = Array.from({ length: recipients }, (_, i) => `bench-${String(i).padStart(6, '0')}@example.com`);
    await importBenchContacts(accountId, type.id, emails, 4);
    const sender = await confirmedBenchSender(accountId, 'bench@acme.example');
    const group = await addUnsubscribeGroup(accountId, { group_name: 'Bench', description: 'Bench', is_display: 1 });
    const setupMs = Date.now() - setupStarted;

    // The yardsticks, on the same warm DynamoDB Local and sink, before the send and again after it
    // (a neighbour's load then weighs on both sides of the ratio): one conditional put per recipient
    // (the ledger claim) at as many in flight as the deliverers keep, and one SendEmail to the sink.
    const concurrency = sendingSettings().deliveryConcurrency * queueConcurrency;
    const putLimit = async () => {
      const meter = cpuMeter(stack.ports.dynamodb, sinkProcess.pid);
      const rate = await conditionalPutRate(limitPuts, concurrency);
      return { rate, cpu: perUnit(meter.stop(), rate.requests * 1.25) };
    };
    const sinkLimit = async () => {
      const meter = cpuMeter(stack.ports.dynamodb, sinkProcess.pid);
      const rate = await sinkRate(limitPuts / 2, concurrency, sampleMail());
      const cpu = perUnit(meter.stop(), rate.requests * 1.25);
      return { rate, cpu };
    };
    const putsBefore = await putLimit();
    const sinkBefore = await sinkLimit();
    // The floor of the send path's own work per recipient: one SES call and one ledger claim and mark.
    const pairMeter = cpuMeter(stack.ports.dynamodb, sinkProcess.pid);
    const pairs = await ledgerPairRate(limitPuts / 2, 2);
    const pairCpu = perUnit(pairMeter.stop(), pairs.requests * 12);

    // Measured: create through the API -> scheduler -> dispatcher -> queue -> deliverer -> sink -> status 3.
    sinkProcess.drain(/^bench-\d{6}@example\.com$/, 50);
    global.gc?.();
    const heapBefore = process.memoryUsage().heapUsed;
    const heap = heapPeak();
    const requests = countRequests();
    const meter = cpuMeter(stack.ports.dynamodb, sinkProcess.pid);
    const started = Date.now();
    const form = new URLSearchParams({
      template_id: '2',
      sender_id: String(sender.id),
      unsubscribe_group_id: String(group.id),
      single_send_name: 'Bench',
      subject: 'Hello ((first_name))',
      preheader: 'Bench run',
      'recipient_id[0]': `contacts_${type.id}`,
      schedule_type: '0',
    });
    const created = await benchOwn.run(true, () => fetch(`${stack.urls.api}single/send/create`, { method: 'POST', headers, body: form }));
    const { message } = (await created.json()) as { message: { utr: string } };
    let firstMailMs: number | undefined;
    let lastMailMs: number | undefined;
    for (;;) {
      // The bench's own reads of the send are not counted as the pipeline's.
      const send = await benchOwn.run(true, () => getSingleSend(accountId, message.utr));
      const tally = sinkProcess.tally;
      if (firstMailMs === undefined && tally.firstAt !== null) firstMailMs = tally.firstAt - started;
      if (lastMailMs === undefined && tally.addresses >= recipients) lastMailMs = tally.lastAt! - started;
      if (send.status === 3) break;
      if (Date.now() - started > 30 * 60_000) throw new Error(`not complete after 30 minutes: ${JSON.stringify(send)}`);
      await new Promise((done) => setTimeout(done, 100));
    }
    const totalMs = Date.now() - started;
    const sendCpu = perUnit(meter.stop(), recipients);
    const peakHeap = heap.stop();
    requests.stop();
    const inSink = await sinkProcess.stopDrain();
    // The last mail may have landed after the send's status turned 3 was last polled for it.
    lastMailMs ??= inSink.lastAt === null ? undefined : inSink.lastAt - started;
    const requestTotal = [...requests.counts.values()].reduce((sum, n) => sum + n, 0);
    const putsAfter = await putLimit();
    const sinkAfter = await sinkLimit();
    const send = await getSingleSend(accountId, message.utr);
    const mailsPerSecond = recipients / (totalMs / 1000);
    const windowRate = recipients / (((lastMailMs ?? totalMs) - (firstMailMs ?? 0)) / 1000);
    const putRate = (putsBefore.rate.requestsPerSecond + putsAfter.rate.requestsPerSecond) / 2;
    const sinkMailRate = Math.round((sinkBefore.rate.requestsPerSecond + sinkAfter.rate.requestsPerSecond) / 2);
    // CPU of all three processes per put and per recipient: on a machine whose cores others share,
    // the wall-clock rates swing with their load between the put runs and the send, CPU time much less.
    // Their ratio is the share the send would reach where the machine's CPU is the limit.
    const cpuTotal = (cpu: { node_cpu_ms: number; jvm_cpu_ms: number | null; sink_cpu_ms: number | null }) => cpu.node_cpu_ms + (cpu.jvm_cpu_ms ?? 0) + (cpu.sink_cpu_ms ?? 0);
    const result = {
      recipients,
      setup_seconds: seconds(setupMs),
      first_mail_seconds: seconds(firstMailMs ?? totalMs),
      last_mail_seconds: seconds(lastMailMs ?? totalMs),
      complete_seconds: seconds(totalMs),
      mails_per_second: Math.round(mailsPerSecond),
      // From the first mail in the sink to the last: the pipeline's steady rate, without the start
      // (API, scheduler poll, first page) and the end (settling, completing, the bench's 100 ms poll).
      sink_window_seconds: seconds((lastMailMs ?? totalMs) - (firstMailMs ?? 0)),
      sink_window_mails_per_second: Math.round(windowRate),
      conditional_put_limit: { puts_per_second: putRate, before: putsBefore.rate.requestsPerSecond, after: putsAfter.rate.requestsPerSecond, concurrency, puts: limitPuts, cpu_per_put: putsBefore.cpu },
      sink_limit: { mails_per_second: sinkMailRate, before: sinkBefore.rate.requestsPerSecond, after: sinkAfter.rate.requestsPerSecond, concurrency, mails: limitPuts / 2, cpu_per_mail: sinkBefore.cpu },
      share_of_put_limit: ratio(mailsPerSecond / putRate),
      window_share_of_put_limit: ratio(windowRate / putRate),
      cpu_share_of_put_limit: ratio(cpuTotal(putsBefore.cpu) / cpuTotal(sendCpu)),
      cpu_per_recipient: sendCpu,
      // The highest share the send could reach where CPU is the limit, if a recipient cost nothing but
      // its SES call and its ledger claim and mark (no render, reads, queue or counting).
      ledger_pair: { pairs_per_second: pairs.itemsPerSecond, cpu_per_pair: pairCpu },
      floor_cpu_share_of_put_limit: ratio(cpuTotal(putsBefore.cpu) / (cpuTotal(sinkBefore.cpu) + cpuTotal(pairCpu))),
      dynamodb_requests_per_recipient: Math.round((requestTotal / recipients) * 1000) / 1000,
      dynamodb_requests: Object.fromEntries([...requests.counts].sort((a, b) => b[1] - a[1])),
      heap_before_send_mb: Math.round(heapBefore / 2 ** 20),
      peak_heap_during_send_mb: Math.round(peakHeap / 2 ** 20),
      triggered: send.triggered,
      delivered: send.delivered,
      distinct_addresses_in_sink: inSink.addresses,
      sink_mails: inSink.mails,
      status: send.status,
    };
    console.log(JSON.stringify(result, null, 2));
    if (send.triggered !== recipients || inSink.addresses !== recipients) process.exitCode = 1;
  } finally {
    await stack.stop();
    await sinkProcess.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

void main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
