// Passes over a partition whose items are so large that DynamoDB's 1 MB per Query holds fewer than a
// page of 500: a segment's rebuild and an automation going live still read every recipient.
import { listEnrolments } from '../../shared/automations/enrolments';
import { forEachSegmentRecipient } from '../../shared/segments/recipients';
import { addStep, automationWorld, call, createAutomation, type AutomationWorld } from '../support/automations';
import { callContacts } from '../support/contacts';
import { multipart } from '../support/events';
import { callSegments, listSegments, segmentForm } from '../support/segments';

/** Contacts in the segment: about 4 KB each as recipients, so one Query reads about 250 of them. */
const audience = 400;
/** The longest text a contact field takes (255 characters), in a character of three bytes. */
const longest = (prefix: string) => `${prefix}${'\u20ac'.repeat(255 - prefix.length)}`;
const city = longest('Kochi');

let world: AutomationWorld;
let segmentId: number;

async function recipientsOfSegment(): Promise<number> {
  let count = 0;
  await forEachSegmentRecipient(world.accountId, segmentId, async (recipients) => {
    count += recipients.length;
  });
  return count;
}

beforeAll(async () => {
  world = await automationWorld();
  const columns = ['email', 'country', 'first_name', 'last_name', 'state', 'city', 'address_line1'];
  const rows = Array.from({ length: audience }, (_, i) => [`person${i}@example.com`, 'US', longest(`F${i}`), longest(`L${i}`), longest('S'), city, longest('A')].join(','));
  const uploaded = await callContacts(world.keys, 'POST', 'contacts/upload-csv', {
    body: multipart({ contact_type_id: world.contactTypeId, file: { filename: 'long.csv', content: [columns.join(','), ...rows].join('\n') } }),
  });
  expect(uploaded.body).toMatchObject({ status: 'success', imported: audience, failed: 0 });
  const saved = await callSegments(world.keys, 'POST', 'segment/save', { body: segmentForm(world.contactTypeId, 'Long fields', [['city', 'is', city]]) });
  expect(saved.status).toBe(200);
  const segment = (await listSegments(world.keys)).find((candidate) => candidate.segment_name === 'Long fields') as { id: number; segment_emails_count: number };
  segmentId = segment.id;
  expect(segment.segment_emails_count).toBe(audience);
}, 120_000);

test('a custom automation going live enrols every recipient of its segment', async () => {
  const utr = await createAutomation(world, { type: 'custom', automation_for: `segments_${segmentId}`, exit_criteria: 1 });
  await addStep(world, utr, { waiting_period: 1, waiting_type: 'days' });
  const live = await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
  expect(live.status).toBe(200);
  expect(await listEnrolments(world.accountId, utr)).toHaveLength(audience);
});

test('a rebuild after the rules changed takes out every recipient that no longer matches', async () => {
  const updated = await callSegments(world.keys, 'POST', 'segment/update', {
    body: segmentForm(world.contactTypeId, 'Long fields', [['city', 'is', 'Nowhere']], { segment_id: segmentId }),
  });
  expect(updated).toEqual({ status: 200, body: { status: 'success', message: 'Updated Successfully' } });
  expect(await recipientsOfSegment()).toBe(0);
  expect((await listSegments(world.keys)).find((segment) => segment.id === segmentId)).toMatchObject({ segment_emails_count: 0 });
});
