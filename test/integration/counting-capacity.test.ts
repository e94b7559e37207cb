// What counting costs the busiest item, measured by the capacity meter (bench/lib/capacity-meter.ts) on
// DynamoDB Local: an automation step's mails and their SES delivery events, and many people's clicks
// on one link of a single send, each put at most 0.3 write units per mail or click on any one item.
import { runDueSteps } from '../../shared/automation-runs/runner';
import { automationKey, automationStepDesignKey } from '../../shared/automations/keys';
import { addAutomation, getAutomation, setAutomationLive } from '../../shared/automations/repository';
import { enrolContacts } from '../../shared/automations/enrolments';
import { addAutomationStep } from '../../shared/automations/steps';
import { automationStepStatistics } from '../../shared/automations/step-statistics';
import { forEachContactOfType } from '../../shared/contacts/repository';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { recordClick } from '../../shared/statistics/event-counts';
import { mostClickedLinks } from '../../shared/single-sends/link-clicks';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { singleSendKey } from '../../shared/single-sends/keys';
import { getSingleSend } from '../../shared/single-sends/repository';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { addressSuppressionKey } from '../../shared/suppressions/state-keys';
import { currentTime } from '../../shared/time';
import { sendCapacity, startCapacityMeter, writesByKind } from '../../bench/lib/capacity-meter';
import { eventually } from '../support/stack-client';
import { accountWithContacts, largeDesign, mailsTo, readySend, startSendingEnvironment, verifiedSender, type SendingEnvironment } from '../support/sending';

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
  // A step's mail carries its sender's postal address, whose country is read from the reference data.
  await seedReferenceData();
});

afterAll(async () => {
  await env.stop();
});

/** Enough picks that a shard's share settles near its eighth (the busiest of 8 stays well under 0.3 of the writes). */
const recipients = 120;

// A hundred and twenty renders of a 300 KB design and their mails through the sink: time, not a limit on it.
jest.setTimeout(600_000);

test(`an automation step of ${recipients} mails with a 300 KB design: at most 0.3 write units a mail on any item, its mails and delivery events counted`, async () => {
  const { accountId, typeId, emails } = await accountWithContacts(recipients);
  const sender = await verifiedSender(accountId, 'news@acme.example');
  const group = await addUnsubscribeGroup(accountId, { group_name: 'News', description: 'News', is_display: 1 });
  const automation = await addAutomation(accountId, { type: 'custom', target: { table: 'contacts_', id: typeId }, automation_name: 'Capacity', unsubscribe_group_id: group.id, exit_criteria: 0 });
  const step = await addAutomationStep(
    accountId,
    { utr: automation.utr, id: automation.id },
    { sender_id: sender.id, template_id: 2, subject: 'Hello ((first_name))', waiting_period: 0, waiting_type: 'instantly', preview_img: 'news.svg', template_json: null, template_html: largeDesign(300_000) },
  );
  await setAutomationLive(accountId, automation.utr);
  // Enrolled directly, as a going-live job would: the meter watches the step's run alone.
  await forEachContactOfType(accountId, typeId, async (contacts) => {
    await enrolContacts(accountId, automation.utr, contacts.map((contact) => ({ contactId: contact.id, email: contact.email })), currentTime());
  });

  const meter = startCapacityMeter();
  const runStarted = Date.now();
  let runSeconds = 0;
  const { sent } = await runDueSteps()
    .finally(() => (runSeconds = (Date.now() - runStarted) / 1000))
    .then(async (summary) => {
      await env.sink.eventsIdle();
      return summary;
    })
    .finally(() => meter.stop());

  // Every mail handed to SES is counted, and each delivery event; a mail whose SES call timed out on
  // a loaded machine is not triggered (its outcome unknown), and may still land in the sink after the
  // run, its delivery event after that: the count is read once the sink's mail and events are settled.
  const settled = async () => {
    await env.sink.eventsIdle();
    return { inSink: (await mailsTo(env.sink, emails)).length, totals: await getAutomation(accountId, automation.utr) };
  };
  const { inSink: delivered, totals } = await eventually(settled, ({ inSink, totals }) => totals.total_delivered === inSink, { timeoutMs: 60_000, everyMs: 500 });
  expect(sent).toBeGreaterThan(0);
  expect(totals).toMatchObject({ total_triggered: sent, total_delivered: delivered });
  expect(await automationStepStatistics(accountId, automation.utr)).toMatchObject([{ id: step.id, delivered }]);
  const cost = sendCapacity(meter, sent, automationStepDesignKey(accountId, automation.utr, step.id));
  // Printed for the record: docs/architecture.md's scale model derives from these figures.
  process.stdout.write(`automation step capacity, ${sent} mails, 300 KB design: ${JSON.stringify({ ...cost, by_kind: writesByKind(meter, sent) })}\n`);
  expect(cost.hottest_item.write_units_per_mail).toBeLessThanOrEqual(0.3);
  // Whether it was paused meanwhile is looked at once a second for the whole run, however many of
  // its due partitions are mailed side by side (a look per partition read it up to 16 times a second).
  expect(meter.item(automationKey(accountId, automation.utr)).reads).toBeLessThanOrEqual(Math.ceil(runSeconds) + 1);
  // Each address's suppression state is read once, by the deliverer right before its mail (the
  // runner no longer reads it first to end unsubscribed enrolments: the deliverer reports them).
  expect(emails.map((email) => meter.item(addressSuppressionKey(accountId, email)).reads)).toEqual(emails.map(() => 1));
});

test(`${recipients} people clicking one link of a send: at most 0.3 write units a click on any item, every click counted`, async () => {
  const { accountId, typeId, emails } = await accountWithContacts(recipients);
  const send = await readySend(accountId, { recipient_id: [{ id: String(typeId), table: 'contacts_' }] });
  await dispatchHandler({ accountId, utr: send.utr });
  await localQueueIdle();
  await env.sink.eventsIdle();
  const ref = { kind: 'single-send' as const, accountId, utr: send.utr };
  const link = 'https://shop.example/spring-sale';

  const meter = startCapacityMeter();
  try {
    for (const email of emails) await recordClick(ref, email, link);
  } finally {
    meter.stop();
  }

  expect(await getSingleSend(accountId, send.utr)).toMatchObject({ delivered: emails.length });
  expect(await mostClickedLinks(ref)).toEqual([{ url: link, clicks: emails.length, unique_clicks: emails.length }]);
  const cost = sendCapacity(meter, emails.length, singleSendKey(accountId, send.utr));
  process.stdout.write(`link click capacity, ${emails.length} clicks on one link: ${JSON.stringify({ ...cost, by_kind: writesByKind(meter, emails.length) })}\n`);
  expect(cost.hottest_item.write_units_per_mail).toBeLessThanOrEqual(0.3);
});
