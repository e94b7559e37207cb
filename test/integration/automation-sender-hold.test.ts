// Automation steps are never mailed from an unverified sender: the step runner holds a step whose
// sender is not verified (its enrolments stay due, nothing is skipped), the automation's details say
// so, and the held mails go out, from the verified address, once the sender is verified again.
import { runDueSteps } from '../../shared/automation-runs/runner';
import { listEnrolments } from '../../shared/automations/enrolments';
import { addSender, confirmSenderAddress, getSender, updateSender } from '../../shared/senders/repository';
import { addStep, automationWorld, call, createAutomation, detailsOf, type AutomationWorld } from '../support/automations';
import { callContacts } from '../support/contacts';
import { multipart } from '../support/events';
import { mailsTo, place, uniqueAddress } from '../support/senders';
import { simulatedTimeWithSink } from '../support/simulated-time';

const minute = 60_000;
const hour = 60 * minute;

// One simulated clock for the whole file that only moves forward: the runner remembers drained hours.
const time = simulatedTimeWithSink();
const advance = time.advance;

let serial = 0;
function address(name: string): string {
  serial++;
  return `${name}-${serial}-${time.now()}@hold.example`;
}

async function addContact(world: AutomationWorld, email: string): Promise<void> {
  const result = await callContacts(world.keys, 'POST', 'contacts/add', {
    body: multipart({ contact_type_id: world.contactTypeId, email, first_name: 'Ada', country: place.usa }),
  });
  if (result.status !== 200) throw new Error(`contact not added: ${JSON.stringify(result.body)}`);
}

/** A live welcome automation whose steps are `[subject, sender id]`, all sent at once. */
async function liveAutomation(world: AutomationWorld, steps: [string, number][]): Promise<string> {
  const utr = await createAutomation(world);
  for (const [subject, sender_id] of steps) await addStep(world, utr, { subject, sender_id });
  const result = await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
  if (result.status !== 200) throw new Error(`set-live failed: ${JSON.stringify(result.body)}`);
  return utr;
}

/** Change a sender's from address (which makes it unverified); answers the new address. */
async function changeAddress(world: AutomationWorld, senderId: number): Promise<string> {
  const { id: _id, user_id: _user, is_verified: _verified, utr: _utr, send_at: _sendAt, created_at: _created, updated_at: _updated, deleted_at: _deleted, ...input } = await getSender(
    world.accountId,
    senderId,
  );
  const from_email = uniqueAddress();
  await updateSender(world.accountId, senderId, { ...input, from_email });
  return from_email;
}

async function mailsOf(email: string): Promise<{ subject: string; from: string }[]> {
  return (await mailsTo(time.sink(), email)).map((mail) => ({ subject: mail.subject, from: mail.from }));
}

describe('automation steps and unverified senders', () => {
  it('holds a step whose sender address changed, keeps its enrolments due across hours, and mails them from the new address once verified', async () => {
    const world = await automationWorld();
    const utr = await liveAutomation(world, [['Welcome', world.senderId]]);
    const newAddress = await changeAddress(world, world.senderId);
    const ada = address('ada');
    await addContact(world, ada);

    // The run's totals count every account's due enrolments in this worker's table (earlier files may
    // leave some due later, and this test moves the clock hours on): this world's are read from its own records.
    const first = await runDueSteps();
    expect(first.keptDue).toBeGreaterThanOrEqual(1);
    expect(await mailsOf(ada)).toEqual([]);
    expect((await listEnrolments(world.accountId, utr)).map((enrolment) => [enrolment.state, enrolment.lastStepId])).toEqual([['active', 0]]);
    expect(await detailsOf(world, utr)).toMatchObject({ total_triggered: 0, held: { reason: 'sender-unverified' } });

    // Hours go by, runs drain and remember them: the held enrolment is not lost behind a drained hour.
    for (let run = 0; run < 3; run++) {
      advance(2 * hour);
      await runDueSteps();
    }
    expect(await mailsOf(ada)).toEqual([]);

    await confirmSenderAddress(world.accountId, world.senderId, newAddress);
    expect(await detailsOf(world, utr)).not.toHaveProperty('held');
    advance(minute);
    await runDueSteps();
    expect(await mailsOf(ada)).toEqual([{ subject: 'Welcome', from: `Acme News <${newAddress}>` }]);
    expect((await listEnrolments(world.accountId, utr)).map((enrolment) => enrolment.state)).toEqual(['completed']);
    expect(await detailsOf(world, utr)).toMatchObject({ total_triggered: 1 });
  });

  it('lets an automation with a never-verified step sender go live, shows it held, and mails the verified steps before it only', async () => {
    const world = await automationWorld();
    const unverified = await addSender(world.accountId, {
      from_name: 'No Reply',
      from_email: 'no-reply@hold.example',
      reply_to_email: 'support@acme.example',
      country_id: place.usa,
      state_id: null,
      city_id: null,
      zip_code: null,
      company_address: '1 Main Street',
      company_address2: null,
      nickname: 'No reply',
    });
    const utr = await liveAutomation(world, [
      ['Verified step', world.senderId],
      ['Unverified step', unverified.id],
    ]);
    const details = await detailsOf(world, utr);
    expect(details).toMatchObject({ status: 1, held: { reason: 'sender-unverified' } });
    expect(String((details.held as { message: string }).message)).toContain(String(unverified.id));

    const bo = address('bo');
    await addContact(world, bo);
    await runDueSteps();
    advance(minute);
    await runDueSteps();
    expect((await mailsOf(bo)).map((mail) => mail.subject)).toEqual(['Verified step']);
    expect((await listEnrolments(world.accountId, utr)).map((enrolment) => [enrolment.state, enrolment.lastStepId > 0])).toEqual([['active', true]]);

    await confirmSenderAddress(world.accountId, unverified.id, unverified.from_email);
    advance(minute);
    await runDueSteps();
    expect((await mailsOf(bo)).map((mail) => mail.subject)).toEqual(['Verified step', 'Unverified step']);
    expect(await detailsOf(world, utr)).not.toHaveProperty('held');
  });

  it('shows no hold on a live automation whose step senders are all verified', async () => {
    const world = await automationWorld();
    const utr = await liveAutomation(world, [['Welcome', world.senderId]]);
    expect(await detailsOf(world, utr)).not.toHaveProperty('held');
  });
});
