// A live automation of an account whose SES tenant is paused: its due steps stay due (nothing
// skipped, nothing mailed), its details say `held: tenant-paused`, another account's automation goes
// on, and once SES enables the tenant the held steps go out under the tenant.
import { runDueSteps } from '../../shared/automation-runs/runner';
import { listEnrolments } from '../../shared/automations/enrolments';
import { setAccountTenantStatus } from '../../infra/scripts/tenants-status';
import { addStep, automationWorld, call, createAutomation, detailsOf, type AutomationWorld } from '../support/automations';
import { callContacts } from '../support/contacts';
import { multipart } from '../support/events';
import { mailsTo, place } from '../support/senders';
import { simulatedTimeWithSink } from '../support/simulated-time';

const minute = 60_000;
const time = simulatedTimeWithSink();

let serial = 0;
function address(name: string): string {
  serial++;
  return `${name}-${serial}-${time.now()}@tenant-hold.example`;
}

async function addContact(world: AutomationWorld, email: string): Promise<void> {
  const result = await callContacts(world.keys, 'POST', 'contacts/add', {
    body: multipart({ contact_type_id: world.contactTypeId, email, first_name: 'Ada', country: place.usa }),
  });
  if (result.status !== 200) throw new Error(`contact not added: ${JSON.stringify(result.body)}`);
}

async function liveAutomation(world: AutomationWorld): Promise<string> {
  const utr = await createAutomation(world);
  await addStep(world, utr, { subject: 'Welcome', sender_id: world.senderId });
  const result = await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
  if (result.status !== 200) throw new Error(`set-live failed: ${JSON.stringify(result.body)}`);
  return utr;
}

const subjects = async (email: string) => (await mailsTo(time.sink(), email)).map((mail) => mail.subject);

describe('automations of an account whose SES tenant is paused', () => {
  it('keeps its steps due and says why while another account\'s go out; enabled again, they go out', async () => {
    // Prepare: two accounts with a live automation and a contact each; A's tenant is paused.
    const a = await automationWorld();
    const b = await automationWorld();
    const utrA = await liveAutomation(a);
    const utrB = await liveAutomation(b);
    const ada = address('ada');
    const bo = address('bo');
    await addContact(a, ada);
    await addContact(b, bo);
    const tenant = await setAccountTenantStatus(a.accountId, 'paused');

    // Act
    await runDueSteps();

    // Assess: A holds, B mails.
    expect(await subjects(ada)).toEqual([]);
    expect(await subjects(bo)).toEqual(['Welcome']);
    expect((await listEnrolments(a.accountId, utrA)).map((enrolment) => [enrolment.state, enrolment.lastStepId])).toEqual([['active', 0]]);
    expect(await detailsOf(a, utrA)).toMatchObject({
      held: {
        reason: 'tenant-paused',
        message: `Steps are held: the account's SES tenant ${tenant.tenant} is paused by SES. Their mails wait and go out once SES enables it again.`,
      },
    });
    expect(await detailsOf(b, utrB)).not.toHaveProperty('held');

    // Act: SES enables the tenant; the next run mails A's held step.
    await setAccountTenantStatus(a.accountId, 'enabled');
    time.advance(minute);
    await runDueSteps();

    // Assess
    expect(await subjects(ada)).toEqual(['Welcome']);
    expect((await listEnrolments(a.accountId, utrA)).map((enrolment) => enrolment.state)).toEqual(['completed']);
    expect(await detailsOf(a, utrA)).not.toHaveProperty('held');
  });
});
