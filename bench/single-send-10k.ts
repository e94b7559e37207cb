// Measures how long the local stack (`npm start`'s runtime, in process) takes to dispatch and deliver
// one immediate single send to 10,000 contacts: from the API's create call to the send's status 3,
// with every mail in the SES sink. Run: `npx tsx bench/single-send-10k.ts [recipients]`.
// The send is made `BENCH_SEND_RUNS` times (3) to the same contacts, and each run is reported as a
// share of yardsticks taken on the same DynamoDB Local right before and right after it (the store's
// conditional-put rate, the sink's, and the ledger's own claim and mark: bench/lib/send-yardsticks.ts);
// the figures are the runs' medians. The SES sink runs in a process of its own
// (bench/lib/sink-child.ts), so this process's one thread does the pipeline's work only, as a
// deliverer's does where the sink is SES. `BENCH_CPU_PROFILE=<dir>` writes a CPU profile of the first send, and of the SES calls and
// ledger pairs of the yardsticks before it.
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../infra/local/local-stack';
import { startSinkProcess } from './lib/sink-process';
import type { OutgoingMail } from '../shared/mail/mailer';
import { recipientMail } from '../shared/delivery/recipient-mail';
import type { SendContent } from '../shared/delivery/send-content';
import { withAccountTenant } from '../shared/tenants/sending-tenant';
import { associateSenderIdentity, ensureAccountTenant } from '../shared/tenancy/tenant-service';
import { findDesignTemplate } from '../shared/templates/repository';
import { measureYardsticks } from './lib/send-yardsticks';
import { startProfile } from './lib/cpu-profile';
import { heapUsed, measuredSend, sendRun, type SendRun } from './lib/measured-send';
import { confirmedBenchSender, importBenchContacts } from './lib/send-audience';
import { median } from './lib/report';
import { sendingSettings } from '../shared/delivery/settings';
import { addContactType } from '../shared/contact-types/repository';
import { addUnsubscribeGroup } from '../shared/suppressions/unsubscribe-groups';

const recipients = Number(process.argv[2] ?? 10_000);
const seconds = (ms: number) => Math.round(ms / 100) / 10;
/** Delivery batches in flight at once (the local queue's concurrency, as the event source mapping's). */
const queueConcurrency = 2;
/** Puts timed for the store's limit (after a warm-up of a quarter as many); half as many mails and ledger pairs. */
const limitPuts = Number(process.env.BENCH_LIMIT_PUTS ?? 4_000);
/** Sends measured; each figure is their median. */
const sendRuns = Number(process.env.BENCH_SEND_RUNS ?? 3);
const profileDir = process.env.BENCH_CPU_PROFILE;

const medianOf = (runs: SendRun[], figure: (run: SendRun) => number) => Math.round(median(runs.map(figure)) * 1000) / 1000;

/**
 * A mail as the send's are, for the SES yardstick: the same library design rendered for one reader by
 * the deliverer's own composer (tracked links, tags, the account's tenant), so the yardstick's SES
 * call carries what the send's do, and only the rendering is left to count as the send's own work.
 */
async function sampleMail(accountId: number): Promise<OutgoingMail> {
  const design = findDesignTemplate(2);
  if (!design) throw new Error('library design 2 is missing');
  // The sender's identity is associated with the account's tenant first, as a send's tenant gate
  // does before its first mail (shared/send-gates/tenant-gate-service.ts): without it the sample
  // named no tenant, while every mail of the sends named one.
  const tenant = await ensureAccountTenant(accountId);
  if (tenant) await associateSenderIdentity(accountId, tenant, 'bench@acme.example');
  const content: SendContent = await withAccountTenant<SendContent>(accountId, {
    subject: 'Hello Bench',
    preheader: 'Bench run',
    designHtml: design.html_code,
    fromEmail: 'bench@acme.example',
    replyTo: 'support@acme.example',
    senderName: 'Bench News',
    senderAddress: '1 Main Street',
    unsubscribeGroupId: 1,
  });
  if (tenant && !content.tenantName) throw new Error(`the sample mail names no tenant, unlike the sends' mails (tenant ${tenant.name})`);
  return recipientMail({ kind: 'single-send', accountId, utr: 'bench-yardstick' }, content, { email: 'bench@example.com', contactId: 1, fields: { first_name: 'Bench', last_name: 'Reader', full_name: 'Bench Reader' } });
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

    // The yardsticks, on the same warm DynamoDB Local and sink, before the first send and after each
    // (a neighbour's load then weighs on both sides of each send's ratios): one conditional put per
    // recipient (the ledger claim), one SendEmail to the sink, and the ledger's claim and mark, at as
    // many in flight as the deliverers keep.
    const concurrency = sendingSettings().deliveryConcurrency * queueConcurrency;
    const mail = await sampleMail(accountId);
    const audience = { typeId: type.id, senderId: sender.id, groupId: group.id };
    const send = () => measuredSend(stack, sinkProcess, recipients, headers, accountId, audience);
    // Memory is flat when the heap a full collection leaves does not grow from before the sends to
    // after the last (run with --expose-gc, as npm run bench does). Never collected between the
    // sends: a full collection throws away part of what V8 compiled for code idle since the last
    // send (its bytecode among it), and the next send ran cold again (about 20% more CPU a recipient, measured).
    global.gc?.();
    const heapBefore = heapUsed();
    // A first send, not measured, as each yardstick has its warm-up: the pipeline's code (the
    // deliverer, the render, the local queue) has not run in this process before, and its first
    // send spends 15-20% more CPU a recipient while V8 compiles it. BENCH_WARM_UP_SEND=0 leaves it out.
    const warmUp = process.env.BENCH_WARM_UP_SEND !== '0';
    if (warmUp) await send();
    const yardsticks = (profiled?: string) => measureYardsticks(stack.ports.dynamodb, sinkProcess.pid, concurrency, limitPuts, mail, profiled);
    // With BENCH_CPU_PROFILE, the yardsticks before the first send are profiled too.
    let before = await yardsticks(profileDir);
    const runs: SendRun[] = [];
    for (let run = 1; run <= sendRuns; run++) {
      const profile = run === 1 && profileDir ? await startProfile() : undefined;
      const measured = await send();
      if (profile) writeFileSync(join(profileDir!, `send-${recipients}.cpuprofile`), JSON.stringify(await profile.stop()));
      const after = await yardsticks();
      runs.push(sendRun(measured, before, after));
      before = after;
    }
    global.gc?.();
    const heapAfter = heapUsed();
    const put = runs.map((run) => run.put_limit);
    const result = {
      recipients,
      runs: runs.length,
      setup_seconds: seconds(setupMs),
      // Each figure the median of the runs'.
      mails_per_second: medianOf(runs, (run) => run.mails_per_second),
      sink_window_mails_per_second: medianOf(runs, (run) => run.sink_window_mails_per_second),
      conditional_put_limit: { puts_per_second: median(put.map((limit) => limit.puts_per_second)), cpu_ms_per_put: median(put.map((limit) => limit.cpu_ms)), concurrency, puts: limitPuts },
      sink_limit: { mails_per_second: medianOf(runs, (run) => run.sink_mails_per_second), cpu_ms_per_mail: medianOf(runs, (run) => run.sink_cpu_ms), concurrency, mails: limitPuts / 2 },
      ledger_pair: { pairs_per_second: medianOf(runs, (run) => run.ledger_pair.pairs_per_second), cpu_ms_per_pair: medianOf(runs, (run) => run.ledger_pair.cpu_ms) },
      ledger_pair_in_transactions: {
        pairs_per_second: medianOf(runs, (run) => run.ledger_pair_in_transactions.pairs_per_second),
        cpu_ms_per_pair: medianOf(runs, (run) => run.ledger_pair_in_transactions.cpu_ms),
      },
      share_of_put_limit: medianOf(runs, (run) => run.share_of_put_limit),
      window_share_of_put_limit: medianOf(runs, (run) => run.window_share_of_put_limit),
      cpu_share_of_put_limit: medianOf(runs, (run) => run.cpu_share_of_put_limit),
      floor_cpu_share_of_put_limit: medianOf(runs, (run) => run.ceiling),
      floor_cpu_share_in_transactions: medianOf(runs, (run) => run.ceiling_in_transactions),
      share_of_ceiling: medianOf(runs, (run) => run.share_of_ceiling),
      window_share_of_ceiling: medianOf(runs, (run) => run.window_share_of_ceiling),
      share_of_ceiling_in_transactions: medianOf(runs, (run) => run.share_of_ceiling_in_transactions),
      cpu_share_of_ceiling: medianOf(runs, (run) => run.cpu_share_of_ceiling),
      cpu_per_recipient: {
        node_cpu_ms: medianOf(runs, (run) => run.cpu_per_recipient.node_cpu_ms),
        jvm_cpu_ms: medianOf(runs, (run) => run.cpu_per_recipient.jvm_cpu_ms ?? 0),
        sink_cpu_ms: medianOf(runs, (run) => run.cpu_per_recipient.sink_cpu_ms ?? 0),
      },
      dynamodb_requests_per_recipient: medianOf(runs, (run) => run.dynamodb_requests_per_recipient),
      // The highest of the runs: memory must not grow from one send to the next either.
      peak_heap_during_send_mb: Math.max(...runs.map((run) => run.peak_heap_during_send_mb)),
      // After a full collection, before the warm-up send and after the last measured send's yardsticks.
      heap_before_sends_mb: Math.round(heapBefore / 2 ** 20),
      heap_after_sends_mb: Math.round(heapAfter / 2 ** 20),
      warm_up_send: warmUp,
      each_run: runs,
    };
    console.log(JSON.stringify(result, null, 2));
    if (runs.some((run) => run.triggered !== recipients || run.distinct_addresses_in_sink !== recipients)) process.exitCode = 1;
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
