// What one automation step's mails cost on `npm start`'s runtime (in process, with its own SES sink,
// whose delivery events ses-events counts), as bench/send-capacity.ts prices a single send: the
// capacity meter and every function's invocations watched from the step runner's run (the
// `automation-steps` function, invoked as its schedule does) until every delivery event is counted.
// The enrolments are written before the meter starts, as contacts entering the automation one by
// one over days would have written them (their cost is the enrolment's, not the step's mail).
// Prints JSON: units per mail, by item kind, and the cost per million step mails beyond SES.
// Run: `npx tsx bench/step-capacity.ts [enrolments]` (BENCH_CAPACITY_DESIGN_KB, default 300).
import { randomUUID } from 'node:crypto';
import type { Context } from 'aws-lambda';
import { loadFunctionHandler, meterInvocations } from '../infra/local/function-modules';
import { lambdaContext } from '../infra/local/lambda-context';
import { automationStepsFunction } from '../infra/stack/service-functions';
import type { RunSummary } from '../shared/automation-runs/runner';
import { automationStepDesignKey } from '../shared/automations/keys';
import { addAutomation, getAutomation, setAutomationLive } from '../shared/automations/repository';
import { enrolContacts } from '../shared/automations/enrolments';
import { addAutomationStep } from '../shared/automations/steps';
import { addContactType } from '../shared/contact-types/repository';
import { forEachContactOfType } from '../shared/contacts/repository';
import { seedReferenceData } from '../shared/reference-data/repository';
import { addUnsubscribeGroup } from '../shared/suppressions/unsubscribe-groups';
import { currentTime } from '../shared/time';
import { readsByKind, sendCapacity, startCapacityMeter, writesByKind } from './lib/capacity-meter';
import { pricesAsOf } from './lib/prices';
import { priceRun } from './lib/run-cost';
import { runBench, withCapacityStack } from './lib/capacity-stack';
import { confirmedBenchSender, importBenchContacts } from './lib/send-audience';
import { largeDesign } from './lib/designs';

const enrolments = Number(process.argv[2] ?? 500);
const designBytes = Number(process.env.BENCH_CAPACITY_DESIGN_KB ?? 300) * 1000;

async function main(): Promise<void> {
  await withCapacityStack(/^step-\d{6}@example\.com$/, async (stack, dataDir, drain) => {
    await seedReferenceData();
    const accountId = stack.demoAccount.account_id;
    const type = await addContactType(accountId, 'Step capacity');
    const emails = Array.from({ length: enrolments }, (_, i) => `step-${String(i).padStart(6, '0')}@example.com`);
    await importBenchContacts(accountId, type.id, emails);
    const sender = await confirmedBenchSender(accountId, 'bench@acme.example');
    const group = await addUnsubscribeGroup(accountId, { group_name: 'Steps', description: 'Steps', is_display: 1 });
    const automation = await addAutomation(accountId, { type: 'custom', target: { table: 'contacts_', id: type.id }, automation_name: 'Step capacity', unsubscribe_group_id: group.id, exit_criteria: 0 });
    const step = await addAutomationStep(
      accountId,
      { utr: automation.utr, id: automation.id },
      { sender_id: sender.id, template_id: 2, subject: 'Hello ((first_name))', waiting_period: 0, waiting_type: 'instantly', preview_img: 'news.svg', template_json: null, template_html: largeDesign(designBytes) },
    );
    await setAutomationLive(accountId, automation.utr);
    await forEachContactOfType(accountId, type.id, async (contacts) => {
      await enrolContacts(accountId, automation.utr, contacts.map((contact) => ({ contactId: contact.id, email: contact.email })), currentTime());
    });

    const started = Date.now();
    const meter = startCapacityMeter();
    const invocations = meterInvocations();
    const runSteps = loadFunctionHandler(automationStepsFunction) as (event: unknown, context: Context) => Promise<RunSummary>;
    let sent = 0;
    // Runs as its schedule runs it, once a minute, until every enrolment is mailed (one run takes up
    // to its time limit; a bench of a few hundred fits in one).
    for (;;) {
      const summary = await runSteps({ trigger: 'bench' }, lambdaContext(automationStepsFunction, randomUUID()));
      sent += summary.sent;
      if (summary.complete) break;
    }
    for (;;) {
      const totals = await meter.unmetered(() => getAutomation(accountId, automation.utr));
      if (totals.total_delivered >= sent) break;
      if (Date.now() - started > 30 * 60_000) throw new Error(`not all delivered after 30 minutes: ${totals.total_delivered} of ${sent}`);
      await new Promise((done) => setTimeout(done, 250));
    }
    meter.stop();
    invocations.stop();
    const tally = drain.stop();
    const capacity = sendCapacity(meter, sent, automationStepDesignKey(accountId, automation.utr, step.id));
    const priced = priceRun(meter, invocations.read(), dataDir, sent);
    console.log(
      JSON.stringify(
        {
          ...capacity,
          write_units_per_mail_by_kind: writesByKind(meter, sent),
          read_units_per_mail_by_kind: readsByKind(meter, sent),
          local_stand_ins_left_out: meter.standIns(),
          ...priced,
          prices: pricesAsOf,
          design_kb: Math.round(designBytes / 1000),
          seconds: Math.round((Date.now() - started) / 100) / 10,
          enrolments,
          sent,
          addresses_in_sink: tally.addresses.size,
        },
        null,
        2,
      ),
    );
    if (sent !== enrolments || tally.addresses.size !== enrolments) process.exitCode = 1;
  });
}

runBench(main);
