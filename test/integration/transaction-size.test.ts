// Writes of many large items through the API on DynamoDB Local, which refuses a transaction of more
// than 4 MB of items as DynamoDB does: they are packed by size as well as by count.
import { listAutomationSteps, readStepDesign } from '../../shared/automations/steps';
import { addCustomField } from '../../shared/custom-fields/repository';
import { addStep, automationWorld, call, createAutomation, uuidPattern } from '../support/automations';
import { newAccount } from '../support/accounts';
import { addType, callContacts, listContacts } from '../support/contacts';
import { multipart } from '../support/events';

/** A design of `bytes` bytes that the design checks accept. */
function design(bytes: number, mark: string): string {
  const open = `<p>${mark}`;
  return `${open}${'x'.repeat(bytes - open.length - 4)}</p>`;
}

test('duplicating an automation with 12 steps of 350 KB copies every step', async () => {
  const world = await automationWorld();
  const utr = await createAutomation(world);
  for (let step = 0; step < 12; step++) await addStep(world, utr, { subject: `Step ${step}`, template_html: design(350 * 1024, `step ${step}`) });

  const result = await call(world.keys, 'GET', 'automations/duplicate', { query: { utr } });
  expect(result).toEqual({ status: 200, body: { status: 'success', message: { utr: expect.stringMatching(uuidPattern) } } });
  const copyUtr = (result.body.message as { utr: string }).utr;
  const [original, copy] = [await listAutomationSteps(world.accountId, utr), await listAutomationSteps(world.accountId, copyUtr)];
  const withDesigns = (automationUtr: string, steps: typeof original) =>
    Promise.all(steps.map(async (step) => [step.subject, (await readStepDesign(world.accountId, automationUtr, step.id)).template_html]));
  const [originalDesigns, copyDesigns] = [await withDesigns(utr, original), await withDesigns(copyUtr, copy)];
  expect(copyDesigns).toEqual(originalDesigns);
  expect(copyDesigns.map(([, html]) => html)).toEqual(Array.from({ length: 12 }, (_, step) => design(350 * 1024, `step ${step}`)));
  expect(copy).toHaveLength(12);
  const details = await call(world.keys, 'GET', 'automations/details', { query: { utr: copyUtr } });
  expect(details.body.message).toMatchObject({ automation: { utr: copyUtr, status: 0 } });
});

test('importing 50 contacts whose custom values take about 100 KB each writes them all', async () => {
  const keys = await newAccount('Wide contacts');
  const type = await addType(keys, 'Wide');
  // Each field's name (64 characters) is stored twice with every contact, beside its value.
  const names = Array.from({ length: 200 }, (_, i) => `f${String(i).padStart(3, '0')}_${'n'.repeat(59)}`);
  for (const name of names) await addCustomField(keys.account_id, name, 'text');
  const value = (row: number, field: number) => `${row}-${field}-${'v'.repeat(290)}`;
  const rows = Array.from({ length: 50 }, (_, row) => [`wide${row}@example.com`, 'US', ...names.map((_, field) => value(row, field))].join(','));
  const csv = [['email', 'country', ...names].join(','), ...rows].join('\n');

  const result = await callContacts(keys, 'POST', 'contacts/upload-csv', { body: multipart({ contact_type_id: type, file: { filename: 'wide.csv', content: csv } }) });
  expect(result).toEqual({
    status: 200,
    body: { status: 'success', message: 'Imported Successfully', imported: 50, updated: 0, failed: 0, errors: [], import_id: expect.any(Number) },
  });
  const contacts = await listContacts(keys);
  expect(contacts).toHaveLength(50);
  expect(contacts.map((contact) => (contact.custom_field as Record<string, { field_value: string }>)[names[199] as string]?.field_value)).toEqual(
    Array.from({ length: 50 }, (_, row) => value(row, 199)),
  );
});
