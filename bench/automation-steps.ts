// Measures how many step mails per second the automation step runner delivers on the local stack
// (`npm start`'s runtime, in process): 10,000 enrolments due at once, one run of the runner, every
// mail in the SES sink, which runs in a process of its own as in single-send-10k.ts.
// Run: `npx tsx bench/automation-steps.ts [enrolments]`.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startLocalStack } from '../infra/local/local-stack';
import { startSinkProcess } from './lib/sink-process';
import { runDueSteps } from '../shared/automation-runs/runner';
import { addAutomationStep } from '../shared/automations/steps';
import { addAutomation, getAutomation, setAutomationLive } from '../shared/automations/repository';
import { importContactRows } from '../shared/audience/contact-service';
import type { ImportRow } from '../shared/audience/import-lookup';
import { addContactType } from '../shared/contact-types/repository';
import { forEachContactOfType } from '../shared/contacts/repository';
import { enrolContacts } from '../shared/automations/enrolments';
import { addSender, confirmSenderAddress } from '../shared/senders/repository';
import { addUnsubscribeGroup } from '../shared/suppressions/unsubscribe-groups';
import { currentTime } from '../shared/time';

const enrolments = Number(process.argv[2] ?? 10_000);
const seconds = (ms: number) => Math.round(ms / 100) / 10;

async function main(): Promise<void> {
  process.env.LOG_LEVEL = 'silent';
  const dataDir = mkdtempSync(join(tmpdir(), 'email-service-bench-'));
  const sinkProcess = await startSinkProcess();
  const stack = await startLocalStack({ port: 0, dynamoPort: 0, sesEndpoint: sinkProcess.endpoint, quiet: true, log: () => undefined, dataDir, inMemory: true }).catch(async (error: unknown) => {
    await sinkProcess.stop();
    throw error;
  });
  try {
    const accountId = stack.demoAccount.account_id;

    // Setup (not measured): contacts, a verified sender, a group, a live automation with one step, the enrolments.
    const setupStarted = Date.now();
    const type = await addContactType(accountId, 'Bench');
    const rows: ImportRow[] = Array.from({ length: enrolments }, (_, i) => ({
      line: i + 2,
      fields: { contact_type_id: type.id, first_name: `Reader ${i}`, last_name: 'Bench', email: `step-${String(i).padStart(6, '0')}@example.com`, alt_email: null, country: '233', state: '', city: 'Springfield', address_line1: '', address_line2: '', state_province_region: '', postal_code: '' },
      customValues: {},
    }));
    for (let start = 0; start < rows.length; start += 1000) await importContactRows(accountId, type.id, rows.slice(start, start + 1000), new Set(['email', 'first_name', 'last_name', 'country', 'city']));
    const sender = await addSender(accountId, { from_name: 'Bench News', from_email: 'bench@acme.example', reply_to_email: 'support@acme.example', country_id: 233, state_id: null, city_id: null, zip_code: null, company_address: '1 Main Street', company_address2: null, nickname: 'Bench' });
    await confirmSenderAddress(accountId, sender.id, sender.from_email);
    const group = await addUnsubscribeGroup(accountId, { group_name: 'Bench', description: 'Bench', is_display: 1 });
    const automation = await addAutomation(accountId, { type: 'custom', target: { table: 'contacts_', id: type.id }, automation_name: 'Bench', unsubscribe_group_id: group.id, exit_criteria: 0 });
    await addAutomationStep(accountId, { utr: automation.utr, id: automation.id }, { sender_id: sender.id, template_id: 2, subject: 'Hello ((first_name))', waiting_period: 0, waiting_type: 'instantly', preview_img: 'bench.svg', template_json: null, template_html: null });
    await setAutomationLive(accountId, automation.utr);
    // Enrolled directly (not through set-live), so no local scheduler run starts before the measured one.
    let enrolled = 0;
    await forEachContactOfType(accountId, type.id, async (contacts) => {
      enrolled += await enrolContacts(accountId, automation.utr, contacts.map((contact) => ({ contactId: contact.id, email: contact.email })), currentTime());
    });
    const setupMs = Date.now() - setupStarted;

    // Measured: one runner run over every due enrolment, through the shared delivery path into the sink.
    sinkProcess.drain(/^step-\d{6}@example\.com$/, 250);
    const started = Date.now();
    const summary = await runDueSteps();
    const runMs = Date.now() - started;
    const inSink = (await sinkProcess.stopDrain()).addresses;
    const totals = await getAutomation(accountId, automation.utr);
    console.log(
      JSON.stringify(
        {
          enrolments: enrolled,
          setup_seconds: seconds(setupMs),
          run_seconds: seconds(runMs),
          mails_per_second: Math.round((summary.sent / runMs) * 1000),
          summary,
          mails_in_sink: inSink,
          total_triggered: totals.total_triggered,
        },
        null,
        2,
      ),
    );
  } finally {
    await stack.stop();
    await sinkProcess.stop();
    rmSync(dataDir, { recursive: true, force: true });
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
