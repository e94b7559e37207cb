// The automation engine on DynamoDB Local with the SES sink in process: enrolment by the contacts
// API, CSV import and segment membership; steps sent by the runner as a simulated clock advances;
// pause and resume; unsubscribes; at most one enrolment and one mail per step; delete.
import { runDueSteps } from '../../shared/automation-runs/runner';
import { addContactType } from '../../shared/contact-types/repository';
import { addSegment } from '../../shared/segments/repository';
import { enrolContacts, getEnrolment, listEnrolments } from '../../shared/automations/enrolments';
import { addGlobalUnsubscribe, addToUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { addStep, automationWorld, call, createAutomation, detailsOf, listOf, type AutomationWorld } from '../support/automations';
import { callContacts, listContacts } from '../support/contacts';
import { multipart } from '../support/events';
import { mailsTo, place } from '../support/senders';
import { simulatedTimeWithSink } from '../support/simulated-time';
import { jobsSettled } from '../support/jobs';
import { asStoredBeforeState } from '../support/suppression-state';

const minute = 60_000;
const hour = 60 * minute;
const day = 24 * hour;

// One simulated clock for the whole file that only moves forward: the runner remembers drained hours.
const time = simulatedTimeWithSink();
const advance = time.advance;

let serial = 0;
function address(name: string): string {
  serial++;
  return `${name}-${serial}-${time.now()}@engine.example`;
}

async function addContact(world: AutomationWorld, email: string, fields: Record<string, string | number> = {}): Promise<number> {
  const result = await callContacts(world.keys, 'POST', 'contacts/add', {
    body: multipart({ contact_type_id: world.contactTypeId, email, first_name: 'Ada', country: place.usa, ...fields }),
  });
  if (result.status !== 200) throw new Error(`contact not added: ${JSON.stringify(result.body)}`);
  const added = (await listContacts(world.keys)).find((contact) => contact.email === email);
  return Number(added?.id);
}

async function setLive(world: AutomationWorld, utr: string) {
  return call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
}

/** A live automation with one step per `[subject, waiting_type, waiting_period]`. */
async function liveAutomation(world: AutomationWorld, steps: [string, string, number][], fields: Record<string, string | number> = {}): Promise<string> {
  const utr = await createAutomation(world, fields);
  for (const [subject, waiting_type, waiting_period] of steps) await addStep(world, utr, { subject, waiting_type, waiting_period });
  const result = await setLive(world, utr);
  if (result.status !== 200) throw new Error(`set-live failed: ${JSON.stringify(result.body)}`);
  return utr;
}

async function subjectsTo(email: string): Promise<string[]> {
  return (await mailsTo(time.sink(), email)).map((mail) => mail.subject);
}

const welcomeSteps: [string, string, number][] = [
  ['Welcome', 'instantly', 0],
  ['One hour in', 'hours', 1],
  ['Two days later', 'days', 2],
];

describe('automation engine', () => {
  it('sends a welcome automation to a contact added through the API: step 1 at once, step 2 an hour later, step 3 two days after that', async () => {
    const world = await automationWorld();
    const before = address('before');
    await addContact(world, before);
    const utr = await liveAutomation(world, welcomeSteps);
    const ada = address('ada');
    await addContact(world, ada, { first_name: 'Ada' });

    const enrolments = await listEnrolments(world.accountId, utr);
    expect(enrolments.map((enrolment) => [enrolment.email, enrolment.state, enrolment.lastStepId])).toEqual([[ada, 'active', 0]]);

    await runDueSteps();
    expect(await subjectsTo(ada)).toEqual(['Welcome']);
    // A welcome automation enrols joiners after it went live, not the contacts it found.
    expect(await subjectsTo(before)).toEqual([]);

    advance(59 * minute);
    await runDueSteps();
    expect(await subjectsTo(ada)).toEqual(['Welcome']);
    advance(minute);
    await runDueSteps();
    expect(await subjectsTo(ada)).toEqual(['Welcome', 'One hour in']);

    advance(2 * day - minute);
    await runDueSteps();
    expect(await subjectsTo(ada)).toEqual(['Welcome', 'One hour in']);
    advance(minute);
    await runDueSteps();
    expect(await subjectsTo(ada)).toEqual(['Welcome', 'One hour in', 'Two days later']);

    const [enrolment] = await listEnrolments(world.accountId, utr);
    expect(enrolment?.state).toBe('completed');
    advance(3 * day);
    await runDueSteps();
    expect(await subjectsTo(ada)).toHaveLength(3);

    // The mail went through the shared delivery path: rendered for the contact, with the footer links.
    const [first] = await mailsTo(time.sink(), ada);
    expect(first?.body.html).toContain('public/');
    // Delivered: the sink's SES delivery events, once they are in.
    await time.sink().eventsIdle();
    const details = await detailsOf(world, utr);
    expect(details).toMatchObject({ total_triggered: 3, total_delivered: 3 });
    expect((await listOf(world)).find((automation) => automation.utr === utr)).toMatchObject({ total_triggered: 3, total_delivered: 3 });
  });

  it('enrols a contact moved into the target type by contacts/update, as one added there', async () => {
    const world = await automationWorld();
    const other = await addContactType(world.accountId, 'Elsewhere');
    const utr = await liveAutomation(world, welcomeSteps.slice(0, 1));
    const cleo = address('cleo');
    const added = await callContacts(world.keys, 'POST', 'contacts/add', {
      body: multipart({ contact_type_id: other.id, email: cleo, first_name: 'Cleo', country: place.usa }),
    });
    expect(added.status).toBe(200);
    const contactId = Number((await listContacts(world.keys)).find((contact) => contact.email === cleo)?.id);
    expect(await listEnrolments(world.accountId, utr)).toEqual([]);

    const moved = await callContacts(world.keys, 'POST', 'contacts/update', {
      body: multipart({ contact_id: contactId, contact_type_id: world.contactTypeId, email: cleo, first_name: 'Cleo', country: place.usa }),
    });
    await runDueSteps();

    expect(moved.status).toBe(200);
    expect((await listEnrolments(world.accountId, utr)).map((enrolment) => enrolment.email)).toEqual([cleo]);
    expect(await subjectsTo(cleo)).toEqual(['Welcome']);
  });

  it('stops at pause and resumes on set-live, sending the step that fell due meanwhile', async () => {
    const world = await automationWorld();
    const utr = await liveAutomation(world, welcomeSteps.slice(0, 2));
    const bea = address('bea');
    const contactId = await addContact(world, bea);
    await runDueSteps();
    expect(await subjectsTo(bea)).toEqual(['Welcome']);

    expect((await call(world.keys, 'GET', 'automations/pause', { query: { utr } })).status).toBe(200);
    advance(2 * hour);
    await runDueSteps();
    expect(await subjectsTo(bea)).toEqual(['Welcome']);
    expect((await getEnrolment(world.accountId, utr, contactId))?.state).toBe('parked');
    // Still paused: a later run changes nothing.
    advance(hour);
    await runDueSteps();
    expect(await subjectsTo(bea)).toEqual(['Welcome']);

    expect((await setLive(world, utr)).status).toBe(200);
    expect((await getEnrolment(world.accountId, utr, contactId))?.state).toBe('active');
    await runDueSteps();
    expect(await subjectsTo(bea)).toEqual(['Welcome', 'One hour in']);
  });

  // An account stored before the per-address suppression state reads the lists until its backfill is done.
  it.each([['its suppression state complete', false], ['stored before the suppression state', true]])('sends nothing more to an address unsubscribed globally or from the automation group, and ends its enrolment (an account %s)', async (_, storedBefore) => {
    const world = await automationWorld();
    if (storedBefore) await asStoredBeforeState(world.accountId);
    const utr = await liveAutomation(world, welcomeSteps.slice(0, 2));
    const [global, grouped, kept] = [address('global'), address('grouped'), address('kept')];
    const ids = [await addContact(world, global), await addContact(world, grouped), await addContact(world, kept)];
    await runDueSteps();
    await addGlobalUnsubscribe(world.accountId, global);
    await addToUnsubscribeGroup(world.accountId, world.groupId, grouped);
    advance(hour);
    await runDueSteps();
    expect([await subjectsTo(global), await subjectsTo(grouped), await subjectsTo(kept)]).toEqual([['Welcome'], ['Welcome'], ['Welcome', 'One hour in']]);
    const states = await Promise.all(ids.map(async (id) => (await getEnrolment(world.accountId, utr, id))?.state));
    expect(states).toEqual(['unsubscribed', 'unsubscribed', 'completed']);
    // Setting it live started the account's suppression state backfill (the runner only reads the marker).
    if (storedBefore) expect((await jobsSettled(world.accountId)).map((job) => job.kind)).toContain('suppression-state-backfill');
  });

  it('enrols every contact a CSV import creates', async () => {
    const world = await automationWorld();
    const utr = await liveAutomation(world, welcomeSteps);
    const people = [address('csv-a'), address('csv-b'), address('csv-c')];
    const csv = ['email,first_name,country', ...people.map((email, i) => `${email},Person ${i},US`)].join('\r\n');
    const upload = await callContacts(world.keys, 'POST', 'contacts/upload-csv', {
      body: multipart({ contact_type_id: world.contactTypeId, file: { filename: 'people.csv', content: csv } }),
    });
    expect(upload.status).toBe(200);
    expect((await listEnrolments(world.accountId, utr)).map((enrolment) => enrolment.email).sort()).toEqual([...people].sort());
    await runDueSteps();
    for (const email of people) expect(await subjectsTo(email)).toEqual(['Welcome']);
  });

  it('enrols the members of a custom automation target when it is set live, and later joiners of its segment', async () => {
    const world = await automationWorld();
    const segment = await addSegment(world.accountId, {
      contact_type_id: world.contactTypeId,
      segment_name: 'Arlington',
      conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'Arlington' }],
    });
    const [first, second, later, elsewhere] = [address('member-1'), address('member-2'), address('member-3'), address('elsewhere')];
    await addContact(world, first, { city: 'Arlington' });
    await addContact(world, second, { city: 'Arlington' });
    await addContact(world, elsewhere, { city: 'Springfield' });
    const utr = await liveAutomation(world, welcomeSteps.slice(0, 2), { type: 'custom', automation_for: `segments_${segment.id}`, exit_criteria: 1 });
    expect((await listEnrolments(world.accountId, utr)).map((enrolment) => enrolment.email).sort()).toEqual([first, second].sort());
    // Added in Arlington: the contact starts to match the segment.
    await addContact(world, later, { city: 'Arlington' });
    expect(await listEnrolments(world.accountId, utr)).toHaveLength(3);
    await runDueSteps();
    for (const email of [first, second, later]) expect(await subjectsTo(email)).toEqual(['Welcome']);
    expect(await subjectsTo(elsewhere)).toEqual([]);

    // exit_criteria 1: a contact that moves out of the segment leaves the automation.
    const movedId = (await listEnrolments(world.accountId, utr)).find((enrolment) => enrolment.email === second)?.contactId as number;
    const moved = await callContacts(world.keys, 'POST', 'contacts/update', {
      body: multipart({ contact_id: movedId, contact_type_id: world.contactTypeId, email: second, first_name: 'Ada', country: place.usa, city: 'Springfield' }),
    });
    expect(moved.status).toBe(200);
    advance(hour);
    await runDueSteps();
    expect([await subjectsTo(first), await subjectsTo(second)]).toEqual([['Welcome', 'One hour in'], ['Welcome']]);
    expect((await getEnrolment(world.accountId, utr, movedId))?.state).toBe('left-target');
  });

  it('enrols a contact at most once per automation', async () => {
    const world = await automationWorld();
    const carl = address('carl');
    const contactId = await addContact(world, carl);
    const utr = await liveAutomation(world, welcomeSteps.slice(0, 1), { type: 'custom' });
    await runDueSteps();
    expect(await subjectsTo(carl)).toEqual(['Welcome']);
    // Paused and set live again: the member is not enrolled (or mailed) a second time.
    await call(world.keys, 'GET', 'automations/pause', { query: { utr } });
    await setLive(world, utr);
    expect(await enrolContacts(world.accountId, utr, [{ contactId, email: carl }], new Date(time.now()))).toBe(0);
    advance(minute);
    await runDueSteps();
    expect(await subjectsTo(carl)).toEqual(['Welcome']);
    expect(await listEnrolments(world.accountId, utr)).toHaveLength(1);
  });

  it('ends the enrolment of a deleted contact', async () => {
    const world = await automationWorld();
    const utr = await liveAutomation(world, welcomeSteps.slice(1, 2));
    const dora = address('dora');
    const contactId = await addContact(world, dora);
    expect((await callContacts(world.keys, 'DELETE', 'contacts/delete', { query: { contact_id: contactId } })).status).toBe(200);
    advance(hour);
    await runDueSteps();
    expect(await subjectsTo(dora)).toEqual([]);
    expect((await getEnrolment(world.accountId, utr, contactId))?.state).toBe('contact-deleted');
  });

  it('removes the enrolments with the automation', async () => {
    const world = await automationWorld();
    const utr = await liveAutomation(world, welcomeSteps.slice(1));
    const eve = address('eve');
    await addContact(world, eve);
    expect(await listEnrolments(world.accountId, utr)).toHaveLength(1);
    expect((await call(world.keys, 'DELETE', 'automations/delete', { query: { utr } })).status).toBe(200);
    expect(await listEnrolments(world.accountId, utr)).toEqual([]);
    advance(hour);
    await runDueSteps();
    expect(await subjectsTo(eve)).toEqual([]);
  });

  it('never mails a step twice when two runs drain the same enrolments at once', async () => {
    const world = await automationWorld();
    const utr = await liveAutomation(world, welcomeSteps.slice(0, 1));
    const people = Array.from({ length: 20 }, (_, i) => address(`twice-${i}`));
    for (const email of people) await addContact(world, email);
    const [one, two] = await Promise.all([runDueSteps(), runDueSteps()]);
    expect(one.sent + two.sent).toBe(20);
    for (const email of people) expect(await subjectsTo(email)).toEqual(['Welcome']);
    expect(await detailsOf(world, utr)).toMatchObject({ total_triggered: 20 });
  });
});
