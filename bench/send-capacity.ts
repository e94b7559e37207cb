// What one single send with a large design costs DynamoDB on `npm start`'s runtime (in process, with
// its own SES sink, whose delivery events ses-events counts): the capacity meter
// (lib/capacity-meter.ts) watches from the API's create answer (the create's one write of the design
// is the API's) to the send's status 3 with every delivery event counted. Prints JSON: write units
// per mail in all (indexes included), on the busiest item, and the reads of the design.
// Run: `npx tsx bench/send-capacity.ts [recipients]` (BENCH_CAPACITY_DESIGN_KB, default 300;
// BENCH_ENGAGEMENT_SEGMENTS=window first saves an engagement segment on the account, `email_opened`
// in the last 30 days, to show what keeping it current adds to the send's path; `=both` also saves,
// once the send exists, one `not in single send` it, whose build and rebuild at the send's completion
// (background jobs) the meter then counts too).
import { meterInvocations } from '../infra/local/function-modules';
import { addContactType } from '../shared/contact-types/repository';
import { singleSendKey } from '../shared/single-sends/keys';
import { getSingleSend } from '../shared/single-sends/repository';
import { addUnsubscribeGroup } from '../shared/suppressions/unsubscribe-groups';
import { readsByKind, sendCapacity, startCapacityMeter, writesByKind } from './lib/capacity-meter';
import { largeDesign } from './lib/designs';
import { pricesAsOf } from './lib/prices';
import { priceRun } from './lib/run-cost';
import { runBench, withCapacityStack } from './lib/capacity-stack';
import { confirmedBenchSender, importBenchContacts } from './lib/send-audience';

const recipients = Number(process.argv[2] ?? 1_000);
const designBytes = Number(process.env.BENCH_CAPACITY_DESIGN_KB ?? 300) * 1000;
const engagementSegments = process.env.BENCH_ENGAGEMENT_SEGMENTS ?? 'none';

/** Save a segment through the API (its build runs in the background, off the meter until the send's create). */
async function saveSegment(api: string, headers: Record<string, string>, contactTypeId: number, rule: [string, string, string]): Promise<void> {
  const form = new URLSearchParams({ contact_type_id: String(contactTypeId), segment_name: rule.join(' '), 'select_field[0]': rule[0], 'select_operator[0]': rule[1], 'value[0]': rule[2] });
  const answer = await fetch(`${api}segment/save`, { method: 'POST', headers, body: form });
  if (answer.status !== 200) throw new Error(`segment/save answered ${answer.status}: ${await answer.text()}`);
}

async function main(): Promise<void> {
  process.env.ACCOUNT_RATE_LIMIT ??= '1000000';
  await withCapacityStack(/^capacity-\d{6}@example\.com$/, async (stack, dataDir, drain) => {
    const accountId = stack.demoAccount.account_id;
    const headers = { PublicKey: stack.demoAccount.public_key, SecretKey: stack.demoAccount.secret_key };
    const type = await addContactType(accountId, 'Capacity');
    const emails = Array.from({ length: recipients }, (_, i) => `capacity-${String(i).padStart(6, '0')}@example.com`);
    await importBenchContacts(accountId, type.id, emails);
    const sender = await confirmedBenchSender(accountId, 'bench@acme.example');
    const group = await addUnsubscribeGroup(accountId, { group_name: 'Capacity', description: 'Capacity', is_display: 1 });
    const form = new URLSearchParams({
      template_id: '2',
      sender_id: String(sender.id),
      unsubscribe_group_id: String(group.id),
      single_send_name: 'Capacity',
      subject: 'Hello ((first_name))',
      preheader: 'Bench run',
      'recipient_id[0]': `contacts_${type.id}`,
      schedule_type: '0',
      template_html: largeDesign(designBytes),
    });
    if (engagementSegments !== 'none') {
      await saveSegment(stack.urls.api, headers, type.id, ['email_opened', 'in last days', '30']);
      // Its build (a background job) done before the meter starts.
      await new Promise((done) => setTimeout(done, 3_000));
    }
    const started = Date.now();
    // Served by the local gateway in its own request context: the meter starts once the create has answered.
    const created = await fetch(`${stack.urls.api}single/send/create`, { method: 'POST', headers, body: form });
    const meter = startCapacityMeter();
    const invocations = meterInvocations();
    const answer = (await created.json()) as { message?: { utr?: string } };
    const utr = answer.message?.utr;
    if (!utr) throw new Error(`single/send/create answered ${created.status}: ${JSON.stringify(answer).slice(0, 400)}`);
    const message = { utr };
    if (engagementSegments === 'both') await meter.unmetered(() => saveSegment(stack.urls.api, headers, type.id, ['email_opened', 'not in single send', utr]));
    for (;;) {
      const send = await meter.unmetered(() => getSingleSend(accountId, message.utr));
      if (send.status === 3 && send.delivered >= recipients) break;
      if (Date.now() - started > 30 * 60_000) throw new Error(`not complete after 30 minutes: ${JSON.stringify({ ...send, template_html: undefined })}`);
      await new Promise((done) => setTimeout(done, 250));
    }
    meter.stop();
    invocations.stop();
    const tally = drain.stop();
    const send = await getSingleSend(accountId, message.utr);
    const capacity = sendCapacity(meter, recipients, singleSendKey(accountId, message.utr));
    const priced = priceRun(meter, invocations.read(), dataDir, recipients);
    console.log(JSON.stringify({ ...capacity, engagement_segments: engagementSegments, write_units_per_mail_by_kind: writesByKind(meter, recipients), read_units_per_mail_by_kind: readsByKind(meter, recipients), local_stand_ins_left_out: meter.standIns(), ...priced, prices: pricesAsOf, design_kb: Math.round(designBytes / 1000), seconds: Math.round((Date.now() - started) / 100) / 10, triggered: send.triggered, delivered: send.delivered, addresses_in_sink: tally.addresses.size }, null, 2));
    if (send.triggered !== recipients || tally.addresses.size !== recipients) process.exitCode = 1;
  });
}

runBench(main);
