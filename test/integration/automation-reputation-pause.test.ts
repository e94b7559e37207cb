// Automations that protect the reputation: a live automation whose step mails bounce past the limit
// (after the minimum number of mails) pauses itself with `paused_reason`, mails the notification
// recipients once, and mails nobody while paused; `automations/set-live` resumes it where its
// enrolments stopped, and nobody is mailed a step twice. Through the real pipeline: the step runner
// on a simulated clock, the sink playing SES's mailbox simulator, and the ses-events function counting.
import type { EventBridgeEvent } from 'aws-lambda';
import { handler as sesEventsHandler } from '../../functions/ses-events/handler';
import { listEnrolments } from '../../shared/automations/enrolments';
import { listAutomationSteps } from '../../shared/automations/steps';
import { encodeSendRef } from '../../shared/ledger/send-ref';
import type { SesEventRecord } from '../../shared/feedback/ses-feedback';
import { runDueSteps } from '../../shared/automation-runs/runner';
import { resetConfig } from '../../shared/config';
import { resetSendBucket } from '../../shared/delivery/deliver';
import { resetSendingSettings } from '../../shared/delivery/settings';
import { addNotificationRecipient } from '../../shared/notification-recipients/repository';
import { addStep, automationWorld, call, createAutomation, detailsOf, type AutomationWorld } from '../support/automations';
import { callContacts } from '../support/contacts';
import { multipart } from '../support/events';
import { mailsTo, place } from '../support/senders';
import { simulatedTimeWithSink } from '../support/simulated-time';

const day = 24 * 60 * 60_000;
const time = simulatedTimeWithSink();
const settings = { PAUSE_MIN_DELIVERIES: '10' };

beforeAll(() => {
  Object.assign(process.env, settings);
  resetConfig();
});

afterAll(() => {
  for (const name of Object.keys(settings)) delete process.env[name];
  resetConfig();
});

async function addContact(world: AutomationWorld, email: string): Promise<void> {
  const result = await callContacts(world.keys, 'POST', 'contacts/add', {
    body: multipart({ contact_type_id: world.contactTypeId, email, first_name: 'Ada', country: place.usa }),
  });
  if (result.status !== 200) throw new Error(`contact not added: ${JSON.stringify(result.body)}`);
}

async function subjectsTo(email: string): Promise<string[]> {
  return (await mailsTo(time.sink(), email)).map((mail) => mail.subject);
}

/** Run the due steps and let the SES events of their mails reach ses-events. */
async function runSteps(): Promise<void> {
  await runDueSteps();
  await time.sink().eventsIdle();
}

/** SES reporting a hard bounce of the automation's first step again (SES may repeat an event). */
async function bounceReportedAgain(world: AutomationWorld, utr: string, email: string): Promise<void> {
  const [first] = await listAutomationSteps(world.accountId, utr);
  const sendRef = encodeSendRef({ kind: 'automation-step', accountId: world.accountId, automationUtr: utr, stepUtr: String(first?.utr) });
  const event = {
    source: 'aws.ses',
    'detail-type': 'Email Bounced',
    detail: {
      eventType: 'Bounce',
      mail: { messageId: `again-${time.now()}`, destination: [email], tags: { send_ref: [sendRef] } },
      bounce: { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: email }] },
    },
  } as unknown as EventBridgeEvent<string, SesEventRecord>;
  await sesEventsHandler(event);
}

/** A live welcome automation (a welcome at once, a follow-up a day later) whose audience has `bouncing` simulator bounces and `readers`. */
async function bouncingAutomation(bouncing: number, readers: number) {
  const world = await automationWorld();
  const tag = `${Math.random().toString(36).slice(2, 8)}-${time.now()}`;
  const owner = `owner-${tag}@example.com`;
  await addNotificationRecipient(world.accountId, { email_address: owner, email_owner: 'Owner' });
  const utr = await createAutomation(world);
  await addStep(world, utr, { subject: 'Welcome' });
  await addStep(world, utr, { subject: 'Follow-up', waiting_type: 'days', waiting_period: 1 });
  expect((await call(world.keys, 'GET', 'automations/set-live', { query: { utr } })).status).toBe(200);
  const bounces = Array.from({ length: bouncing }, (_, i) => `bounce+${tag}-${i}@simulator.amazonses.com`);
  const others = Array.from({ length: readers }, (_, i) => `reader-${tag}-${i}@example.com`);
  for (const email of [...bounces, ...others]) await addContact(world, email);
  return { world, utr, owner, bounces, readers: others };
}

describe('an automation over the bounce limit', () => {
  it('pauses itself, says why, notifies once, mails nobody while paused; set-live continues where it stopped, mailing nobody twice', async () => {
    // Prepare: 10 bounces and 10 readers enrolled; the limit is judged once 10 mails were reported.
    const { world, utr, owner, bounces, readers } = await bouncingAutomation(10, 10);

    // Act: the welcome step goes to all 20; the bounces come back.
    await runSteps();

    // Assess: paused with its reason; one notice naming the reason and how to resume.
    const paused = await detailsOf(world, utr);
    expect(paused).toMatchObject({ status: 2, total_triggered: 20, total_bounces: 10 });
    // Judged as each bounce is counted, once 10 mails were reported: where it lands depends on how the events interleave.
    const [, bounced, mailed] = /^Paused: (\d+) of (\d+) mails bounced \(\d+(?:\.\d+)?%, over the 5% limit\)\.$/.exec(String(paused.paused_reason)) ?? [];
    expect(Number(mailed)).toBeGreaterThanOrEqual(10);
    expect(Number(bounced)).toBeGreaterThan(Number(mailed) * 0.05);
    const notices = await mailsTo(time.sink(), owner);
    expect(notices.map((mail) => mail.subject)).toEqual(['Automation paused: Welcome series']);
    expect(notices[0]?.body.text).toContain(String(paused.paused_reason));
    expect(notices[0]?.body.text).toContain(`GET automations/set-live?utr=${utr}`);

    // Act: a day later the follow-up is due, but the automation is paused.
    time.advance(day + 60_000);
    await runSteps();

    // Assess: nobody mailed the follow-up; every enrolment parked after the welcome; still one notice.
    for (const reader of readers) expect(await subjectsTo(reader)).toEqual(['Welcome']);
    const enrolments = await listEnrolments(world.accountId, utr);
    expect(enrolments.map((enrolment) => enrolment.state)).toEqual(Array(20).fill('parked'));
    expect(new Set(enrolments.map((enrolment) => enrolment.lastStepId)).size).toBe(1);
    expect(enrolments[0]?.lastStepId).toBeGreaterThan(0);
    expect(await mailsTo(time.sink(), owner)).toHaveLength(1);

    // Act: SES reports a bounce again while it is paused: no second notice.
    await bounceReportedAgain(world, utr, String(bounces[0]));
    expect(await mailsTo(time.sink(), owner)).toHaveLength(1);

    // Act: the owner sets it live again.
    expect(await call(world.keys, 'GET', 'automations/set-live', { query: { utr } })).toEqual({ status: 200, body: { status: 'success', message: 'Automation has been set live' } });
    const resumed = await detailsOf(world, utr);
    expect(resumed).toMatchObject({ status: 1 });
    expect(resumed).not.toHaveProperty('paused_reason');
    time.advance(60_000);
    await runSteps();

    // Assess: each reader got the follow-up once, no step twice; the bounced (now suppressed) got nothing more;
    // judged afresh from the resume, the automation stays live; still one notice.
    for (const reader of readers) expect(await subjectsTo(reader)).toEqual(['Welcome', 'Follow-up']);
    for (const bounce of bounces) expect(await subjectsTo(bounce)).toEqual(['Welcome']);
    expect(await detailsOf(world, utr)).toMatchObject({ status: 1, total_bounces: 10 });
    expect(await mailsTo(time.sink(), owner)).toHaveLength(1);

    // Act: the bounce reported once more. Judged on the mails since the resume (10 delivered, no bounce), it
    // stays live; judged on its totals (10 bounced of 30), it would pause again.
    await bounceReportedAgain(world, utr, String(bounces[1]));
    const after = await detailsOf(world, utr);
    expect(after).toMatchObject({ status: 1, total_bounces: 10 });
    expect(after).not.toHaveProperty('paused_reason');
    expect(await mailsTo(time.sink(), owner)).toHaveLength(1);

    // Cleanup: no live automation left behind.
    expect((await call(world.keys, 'DELETE', 'automations/delete', { query: { utr } })).status).toBe(200);
  });

  describe('paused while its step is being mailed', () => {
    beforeAll(() => {
      // 10 mails a second: the 10th bounce is counted long before the step has gone to all 40.
      process.env.SES_MAX_SEND_RATE = '10';
      resetConfig();
      resetSendingSettings();
      resetSendBucket();
    });
    afterAll(() => {
      delete process.env.SES_MAX_SEND_RATE;
      delete process.env.BOUNCE_PAUSE_RATE;
      resetConfig();
      resetSendingSettings();
      resetSendBucket();
    });

    it('stops the step within about a second; the rest waits, parked, and set-live mails it once', async () => {
      // Prepare: 10 bounces and 30 readers, all due for the welcome step.
      const { world, utr, bounces, readers } = await bouncingAutomation(10, 30);

      // Act: the welcome step goes out until the pause lands; a second run finds it paused.
      await runSteps();
      await runSteps();

      // Assess: paused, most not mailed, every enrolment not reached parked at its first step.
      expect(await detailsOf(world, utr)).toMatchObject({ status: 2, paused_reason: expect.stringMatching(/^Paused: \d+ of \d+ mails bounced/) });
      let welcomed = 0;
      for (const email of [...bounces, ...readers]) welcomed += (await subjectsTo(email)).length;
      expect(welcomed).toBeGreaterThanOrEqual(10);
      expect(welcomed).toBeLessThan(40);
      const enrolments = await listEnrolments(world.accountId, utr);
      expect(enrolments.filter((enrolment) => enrolment.lastStepId === 0).map((enrolment) => enrolment.state)).toEqual(Array(40 - welcomed).fill('parked'));

      // Act: set live again, with a limit the bounces not yet mailed cannot pass (the mailing order
      // decides how many are left, and over 5% of what follows they would pause it again); the welcome
      // goes to the rest.
      process.env.BOUNCE_PAUSE_RATE = '0.9';
      resetConfig();
      expect((await call(world.keys, 'GET', 'automations/set-live', { query: { utr } })).status).toBe(200);
      time.advance(60_000);
      await runSteps();

      // Assess: every address welcomed exactly once.
      for (const email of [...bounces, ...readers]) expect(await subjectsTo(email)).toEqual(['Welcome']);
      expect((await call(world.keys, 'DELETE', 'automations/delete', { query: { utr } })).status).toBe(200);
    }, 60_000);
  });

  it('stays live under the minimum of mails, and shows no paused_reason when paused by its owner', async () => {
    const { world, utr, owner } = await bouncingAutomation(3, 2);
    await runSteps();
    const live = await detailsOf(world, utr);
    expect(live).toMatchObject({ status: 1, total_bounces: 3 });
    expect(live).not.toHaveProperty('paused_reason');
    expect(await mailsTo(time.sink(), owner)).toEqual([]);

    expect((await call(world.keys, 'GET', 'automations/pause', { query: { utr } })).status).toBe(200);
    const paused = await detailsOf(world, utr);
    expect(paused).toMatchObject({ status: 2 });
    expect(paused).not.toHaveProperty('paused_reason');
    expect((await call(world.keys, 'DELETE', 'automations/delete', { query: { utr } })).status).toBe(200);
  });
});
