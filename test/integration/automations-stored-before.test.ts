// An automation stored before enrolments were sharded and step designs had items of their own: its
// step with the design inline, its target segment's recipient in the segment's one partition, and an
// enrolment in the automation's one partition, indexed in one of the 4 due shards of its hour, each
// written here exactly as the code before wrote them. The runner finds the enrolment, mails the
// step's design once, and moves the enrolment on where it is (docs/operations.md, upgrade section).
// An automation and a step counted before their counters were sharded keep their counts, summed with
// those counted since.
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { runDueSteps } from '../../shared/automation-runs/runner';
import { addContact } from '../../shared/audience/contact-service';
import { hourBucket } from '../../shared/automations/buckets';
import { getEnrolment, listEnrolments } from '../../shared/automations/enrolments';
import {
  AUTOMATION_ENROLMENT,
  AUTOMATION_STEP,
  automationDuePartition,
  automationDueSortKey,
  automationEnrolmentPartition,
  automationCounterKeys,
  automationIdIndexKey,
  automationKey,
  automationStepCounterKeys,
  automationStepKey,
  automationStepUtrKey,
} from '../../shared/automations/keys';
import { getAutomation } from '../../shared/automations/repository';
import { getAutomationReputationView } from '../../shared/automations/reputation-pause';
import type { SendRef } from '../../shared/ledger/send-ref';
import { addSentCounts, recordSendEvent } from '../../shared/statistics/event-counts';
import { getItems } from '../../shared/table/records';
import { SEGMENT_RECIPIENT, segmentRecipientIdIndexKey, segmentRecipientPartition, segmentKey } from '../../shared/segments/keys';
import { contactEntry } from '../../shared/segments/recipients';
import { addSegment } from '../../shared/segments/repository';
import { db, tableName } from '../../shared/table/client';
import { nextId, reserveIds } from '../../shared/table/ids';
import { idSortKey } from '../../shared/table/keys';
import { automationWorld, call, createAutomation, listOf, type AutomationWorld } from '../support/automations';
import { segmentContact } from '../support/segments';
import { mailsTo } from '../support/senders';
import { simulatedTimeWithSink } from '../support/simulated-time';

jest.setTimeout(120_000);

const time = simulatedTimeWithSink();
const design = '<!DOCTYPE html><html><body><p>Stored with its step, before designs had items of their own.</p></body></html>';

async function put(item: Record<string, unknown>): Promise<void> {
  await db().send(new PutCommand({ TableName: tableName(), Item: item }));
}

/** A segment of everyone in Kochi holding `contactId`, as the code before stored it (one partition, the count on the segment item). */
async function oldSegmentWith(world: AutomationWorld, contact: Awaited<ReturnType<typeof addContact>>): Promise<number> {
  const segment = await addSegment(world.accountId, { contact_type_id: world.contactTypeId, segment_name: 'Kochi', conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'Kochi' }] });
  const id = await reserveIds(world.accountId, SEGMENT_RECIPIENT, 1);
  const now = new Date(time.now()).toISOString();
  await put({
    pk: segmentRecipientPartition(world.accountId, segment.id),
    sk: contact.email.toLowerCase(),
    ...segmentRecipientIdIndexKey(world.accountId, id),
    entity: SEGMENT_RECIPIENT,
    id,
    user_id: world.accountId,
    segment_id: segment.id,
    contact: contactEntry({ ...contact, contact_id: contact.id }),
    created_at: now,
    updated_at: now,
    version: 1,
  });
  await db().send(new UpdateCommand({ TableName: tableName(), Key: segmentKey(world.accountId, segment.id), UpdateExpression: 'ADD segment_emails_count :one', ExpressionAttributeValues: { ':one': 1 } }));
  return segment.id;
}

/** A step with its design inline and its utr pointer, and the automation's step count raised, as the code before wrote them. */
async function oldStep(world: AutomationWorld, utr: string): Promise<number> {
  const automation = await getAutomation(world.accountId, utr);
  const id = await nextId(world.accountId, AUTOMATION_STEP);
  const at = '2026-01-01T00:00:00.000000Z';
  const step = {
    sender_id: world.senderId,
    template_id: 2,
    subject: 'Stored before',
    waiting_period: 0,
    waiting_type: 'instantly',
    preview_img: 'newsletter.svg',
    template_json: null,
    template_html: design,
    id,
    user_id: world.accountId,
    automation_id: automation.id,
    utr: '44444444-2222-4333-8444-555555555555',
    created_at: at,
    updated_at: at,
  };
  await put({ ...automationStepKey(world.accountId, utr, id), entity: AUTOMATION_STEP, automation_utr: utr, ...step });
  await put({ ...automationStepUtrKey(world.accountId, step.utr), entity: `${AUTOMATION_STEP}-utr`, automation_utr: utr, step_id: id });
  await db().send(
    new UpdateCommand({ TableName: tableName(), Key: automationKey(world.accountId, utr), UpdateExpression: 'ADD automation_schedule_count :one', ExpressionAttributeValues: { ':one': 1 } }),
  );
  return id;
}

/** An enrolment due now in the automation's one partition, in due shard `contact id % 4` of this hour. */
async function oldEnrolment(world: AutomationWorld, utr: string, contactId: number, email: string): Promise<void> {
  const now = new Date(time.now());
  await put({
    pk: automationEnrolmentPartition(world.accountId, utr),
    sk: idSortKey(contactId),
    gsi1pk: automationDuePartition(hourBucket(now), contactId % 4),
    gsi1sk: automationDueSortKey(now, world.accountId, utr, contactId),
    entity: AUTOMATION_ENROLMENT,
    account_id: world.accountId,
    automation_utr: utr,
    contact_id: contactId,
    email,
    last_step_id: 0,
    due_at: now.toISOString(),
    state: 'active',
    enrolled_at: now.toISOString(),
  });
}

test('an enrolment stored before in a segment automation stored before gets its step, with the step\u2019s inline design, once', async () => {
  // Prepare: contact id 5 lies in due shard 1 of 4 and enrolment shard 5 of 16.
  const world = await automationWorld();
  const contacts = [];
  for (let i = 0; i < 5; i++) contacts.push(await addContact(world.accountId, segmentContact(world.contactTypeId, `kochi-${i}-${time.now()}@example.com`, { city: i === 4 ? 'Kochi' : 'Pune' }), {}));
  const contact = contacts[4]!;
  expect(contact.id % 16).not.toBe(contact.id % 4);
  const segmentId = await oldSegmentWith(world, contact);
  const utr = await createAutomation(world, { type: 'custom', automation_for: `segments_${segmentId}`, exit_criteria: 1 });
  const stepId = await oldStep(world, utr);
  await oldEnrolment(world, utr, contact.id, contact.email);
  const live = await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });

  // Act
  time.advance(60_000);
  await runDueSteps();
  time.advance(3_600_000);
  await runDueSteps();

  // Assess
  expect(live.status).toBe(200);
  const mails = await mailsTo(time.sink(), contact.email);
  // Read after both runs: one mail in all (the runs' own counts span every account's due enrolments,
  // and other test files share the table, so they are not this test's to assert).
  expect(mails.map((mail) => mail.subject)).toEqual(['Stored before']);
  expect(mails[0]?.body.html).toContain('Stored with its step, before designs had items of their own.');
  expect((await listEnrolments(world.accountId, utr)).map((enrolment) => [enrolment.contactId, enrolment.lastStepId, enrolment.state])).toEqual([[contact.id, stepId, 'completed']]);
  expect((await getEnrolment(world.accountId, utr, contact.id))?.key).toEqual({ pk: automationEnrolmentPartition(world.accountId, utr), sk: idSortKey(contact.id) });
});

/** An automation as the code before stored it: its totals on its own item (on the id index), no counter shards. */
async function oldAutomation(world: AutomationWorld, totals: Record<string, number>): Promise<string> {
  const id = await nextId(world.accountId, 'automation');
  const utr = '33333333-2222-4333-8444-555555555555';
  const at = '2026-01-01T00:00:00.000000Z';
  await put({
    ...automationKey(world.accountId, utr),
    ...automationIdIndexKey(world.accountId, id),
    entity: 'automation',
    id,
    user_id: world.accountId,
    automation_for: world.contactTypeId,
    automation_for_table: 'contacts_',
    automation_name: 'Counted before',
    exit_criteria: 0,
    unsubscribe_group_id: String(world.groupId),
    automation_type: 1,
    utr,
    status: 0,
    live_at: null,
    ...totals,
    deleted_at: null,
    created_at: at,
    updated_at: at,
    automation_schedule_count: 0,
  });
  return utr;
}

test('totals and step counters stored before they were sharded are summed with those counted since; the shards go with a delete', async () => {
  // Prepare: what the old code counted on the automation's item and on the step's utr item.
  const world = await automationWorld();
  const utr = await oldAutomation(world, { total_triggered: 5, total_delivered: 4, total_unique_opens: 2, total_opens: 3, total_bounces: 1, total_unsubscribe: 1 });
  await oldStep(world, utr);
  const stepUtr = '44444444-2222-4333-8444-555555555555';
  await db().send(
    new UpdateCommand({
      TableName: tableName(),
      Key: automationStepUtrKey(world.accountId, stepUtr),
      UpdateExpression: 'ADD delivered :four, opens :three, unique_opens :two, bounces :one, complaints :one, unsubscribes :one',
      ExpressionAttributeValues: { ':four': 4, ':three': 3, ':two': 2, ':one': 1 },
    }),
  );
  const ref: SendRef = { kind: 'automation-step', accountId: world.accountId, automationUtr: utr, stepUtr };

  // Act: one more mail, delivered, opened and complained about.
  await addSentCounts(ref, 1);
  await recordSendEvent(ref, 'delivered', 'new@example.com');
  await recordSendEvent(ref, 'open', 'new@example.com');
  await recordSendEvent(ref, 'complaint', 'new@example.com');

  // Assess
  const totals = { total_triggered: 6, total_delivered: 5, total_unique_opens: 3, total_opens: 4, total_bounces: 1, total_unsubscribe: 1 };
  expect((await call(world.keys, 'GET', 'automations/details', { query: { utr } })).body.message).toEqual({ automation: expect.objectContaining(totals) });
  expect(await listOf(world)).toEqual([expect.objectContaining({ utr, ...totals, automation_schedule_count: 1 })]);
  expect(await call(world.keys, 'GET', 'automations/stats', { query: { utr } })).toEqual({
    status: 200,
    body: {
      status: 'success',
      message: { steps: [{ id: expect.any(Number), subject: 'Stored before', delivered: 5, opens: 4, unique_opens: 3, machine_opens: 0, clicks: 0, unique_clicks: 0, bot_clicks: 0, bounces: 1, complaints: 2, unsubscribes: 1 }] },
    },
  });
  expect((await getAutomationReputationView(world.accountId, utr))?.counts).toEqual({ delivered: 5, bounces: 1, complaints: 2, triggered: 6 });
  const shardKeys = [...automationCounterKeys(world.accountId, utr), ...automationStepCounterKeys(world.accountId, stepUtr)];
  expect((await getItems(shardKeys)).length).toBeGreaterThan(0);

  expect((await call(world.keys, 'DELETE', 'automations/delete', { query: { utr } })).status).toBe(200);
  expect(await getItems(shardKeys)).toEqual([]);
});
