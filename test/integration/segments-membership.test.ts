// Segment membership staying current as contacts are added, changed and deleted, without a rescan:
// the contacts repository syncs each change, and a save or update rebuilds once.
import { handler } from '../../functions/segments/handler';
import { settlingJobs } from '../support/jobs';
import type { ContactRecord } from '../../shared/contacts/record';
import { addContactType } from '../../shared/contact-types/repository';
import { type ContactFields } from '../../shared/contacts/repository';
import { addContact, deleteContact, deleteContacts, deleteContactsOfType, updateContact } from '../../shared/audience/contact-service';
import { addCustomField } from '../../shared/custom-fields/repository';
import { forEachSegmentRecipient, syncContactSegmentsBatch } from '../../shared/segments/membership';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, multipart, parsed, type Keys } from '../support/events';

type Account = Keys & { account_id: number };
type Rule = [field: string, operator: string, value?: string];

/** Calls the segments handler; a save or update returns once its rebuild job has finished. */
const call = settlingJobs(async (keys: Keys, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) =>
  parsed(await handler(apiEvent({ method, path, ...options, headers: authHeaders(keys) }))),
);

function fields(contactTypeId: number, email: string, extra: Partial<ContactFields> = {}): ContactFields {
  return {
    contact_type_id: contactTypeId,
    first_name: 'Katherine',
    last_name: 'Johnson',
    email,
    alt_email: null,
    country: '233',
    state: 'Virginia',
    city: 'Hampton',
    address_line1: '',
    address_line2: '',
    state_province_region: '',
    postal_code: '',
    ...extra,
  };
}

async function saveSegment(keys: Keys, contactTypeId: number, rules: Rule[], segmentId?: number) {
  const form: Record<string, string | number> = { contact_type_id: contactTypeId, segment_name: 'Rules' };
  if (segmentId !== undefined) form.segment_id = segmentId;
  rules.forEach(([field, operator, value], i) => Object.assign(form, { [`select_field[${i}]`]: field, [`select_operator[${i}]`]: operator, [`value[${i}]`]: value ?? '' }));
  const result = await call(keys, 'POST', segmentId === undefined ? 'segment/save' : 'segment/update', { body: multipart(form) });
  expect(result.status).toBe(200);
}

async function members(keys: Keys, segmentId = 1): Promise<string[]> {
  const { body } = await call(keys, 'GET', 'segment/email/list', { query: { segment_id: segmentId } });
  return (body.message as { contactEmails: { email: string }[] }).contactEmails.map((recipient) => recipient.email).sort();
}

async function counts(keys: Keys): Promise<number[]> {
  const { body } = await call(keys, 'GET', 'segment/list');
  return (body.message as { segments: { segment_emails_count: number }[] }).segments.map((segment) => segment.segment_emails_count);
}

async function setUp(rules: Rule[]): Promise<Account & { typeId: number }> {
  const keys = await newAccount();
  await addCustomField(keys.account_id, 'age', 'number');
  await addCustomField(keys.account_id, 'joined', 'datetime-local');
  const type = await addContactType(keys.account_id, 'Everyone');
  await saveSegment(keys, type.id, rules);
  return { ...keys, typeId: type.id };
}

describe('segment membership', () => {
  it('adds a matching contact, and only a matching one, with the count following', async () => {
    const keys = await setUp([['city', 'is', 'hampton']]);
    await addContact(keys.account_id, fields(keys.typeId, 'in@example.com'), {});
    await addContact(keys.account_id, fields(keys.typeId, 'out@example.com', { city: 'Norfolk' }), {});
    expect(await members(keys)).toEqual(['in@example.com']);
    expect(await counts(keys)).toEqual([1]);
  });

  it('removes a contact updated to no longer match, and adds one updated to match', async () => {
    const keys = await setUp([['city', 'is', 'hampton']]);
    const leaving = await addContact(keys.account_id, fields(keys.typeId, 'leaving@example.com'), {});
    const joining = await addContact(keys.account_id, fields(keys.typeId, 'joining@example.com', { city: 'Norfolk' }), {});
    await updateContact(keys.account_id, leaving.id, fields(keys.typeId, 'leaving@example.com', { city: 'Norfolk' }), {});
    await updateContact(keys.account_id, joining.id, fields(keys.typeId, 'joining@example.com'), {});
    expect(await members(keys)).toEqual(['joining@example.com']);
    expect(await counts(keys)).toEqual([1]);
  });

  it('follows a change of address and of name without counting twice', async () => {
    const keys = await setUp([['city', 'is', 'hampton']]);
    const person = await addContact(keys.account_id, fields(keys.typeId, 'old@example.com'), {});
    await updateContact(keys.account_id, person.id, fields(keys.typeId, 'new@example.com', { first_name: 'Kat' }), {});
    const { body } = await call(keys, 'GET', 'segment/email/list', { query: { segment_id: 1 } });
    expect((body.message as { contactEmails: object[] }).contactEmails).toMatchObject([{ contact_id: person.id, email: 'new@example.com', first_name: 'Kat' }]);
    expect(await counts(keys)).toEqual([1]);
  });

  it('removes deleted contacts, one at a time and in bulk', async () => {
    const keys = await setUp([['email', 'ends with', '@example.com']]);
    const created = [];
    for (const name of ['a', 'b', 'c', 'd']) created.push(await addContact(keys.account_id, fields(keys.typeId, `${name}@example.com`), {}));
    await deleteContact(keys.account_id, created[0]!.id);
    expect(await members(keys)).toEqual(['b@example.com', 'c@example.com', 'd@example.com']);
    await deleteContacts(keys.account_id, [created[1]!.id, created[2]!.id]);
    expect(await members(keys)).toEqual(['d@example.com']);
    expect(await counts(keys)).toEqual([1]);
  });

  it('removes a contact that moves to another contact type, and empties when the type is deleted', async () => {
    const keys = await setUp([['city', 'is not empty']]);
    const other = await addContactType(keys.account_id, 'Other');
    const mover = await addContact(keys.account_id, fields(keys.typeId, 'mover@example.com'), {});
    await addContact(keys.account_id, fields(keys.typeId, 'stayer@example.com'), {});
    await updateContact(keys.account_id, mover.id, fields(other.id, 'mover@example.com'), {});
    expect(await members(keys)).toEqual(['stayer@example.com']);
    await deleteContactsOfType(keys.account_id, keys.typeId);
    expect(await members(keys)).toEqual([]);
    expect(await counts(keys)).toEqual([0]);
  });

  it('compares number and datetime-local custom fields by value, not as text', async () => {
    const keys = await setUp([['age', 'greater than', '9']]);
    await saveSegment(keys, keys.typeId, [['joined', 'between', '2024-01-01,2024-06-30T23:59']]);
    await addContact(keys.account_id, fields(keys.typeId, 'ten@example.com'), { age: '10', joined: '2024-06-30T12:00' });
    await addContact(keys.account_id, fields(keys.typeId, 'nine@example.com'), { age: '9', joined: '2024-07-01T00:00' });
    const blank = await addContact(keys.account_id, fields(keys.typeId, 'blank@example.com'), {});
    expect(await members(keys, 1)).toEqual(['ten@example.com']);
    expect(await members(keys, 2)).toEqual(['ten@example.com']);
    await updateContact(keys.account_id, blank.id, fields(keys.typeId, 'blank@example.com'), { age: '100', joined: '2024-01-01' });
    expect(await members(keys, 1)).toEqual(['blank@example.com', 'ten@example.com']);
    expect(await members(keys, 2)).toEqual(['blank@example.com', 'ten@example.com']);
    expect(await counts(keys)).toEqual([2, 2]);
  });

  it('ANDs the conditions of a segment', async () => {
    const keys = await setUp([['city', 'is', 'hampton'], ['age', 'less than', '30']]);
    await addContact(keys.account_id, fields(keys.typeId, 'young@example.com'), { age: '25' });
    await addContact(keys.account_id, fields(keys.typeId, 'older@example.com'), { age: '35' });
    await addContact(keys.account_id, fields(keys.typeId, 'away@example.com', { city: 'Norfolk' }), { age: '25' });
    expect(await members(keys)).toEqual(['young@example.com']);
  });

  it('never takes contacts of another account into a segment', async () => {
    const keys = await setUp([['city', 'is not empty']]);
    const stranger = await newAccount();
    const strangerType = await addContactType(stranger.account_id, 'Theirs');
    expect(strangerType.id).toBe(keys.typeId);
    await addContact(stranger.account_id, fields(strangerType.id, 'theirs@example.com'), {});
    expect(await members(keys)).toEqual([]);
  });

  it('rebuilds once on save and update over more contacts than one transaction holds', async () => {
    const keys = await newAccount();
    const type = await addContactType(keys.account_id, 'Many');
    const total = 130;
    for (let start = 0; start < total; start += 26) {
      await Promise.all(
        Array.from({ length: 26 }, (_, i) => addContact(keys.account_id, fields(type.id, `p${start + i}@example.com`, { city: (start + i) % 2 ? 'Odd' : 'Even' }), {})),
      );
    }
    await saveSegment(keys, type.id, [['email', 'starts with', 'p']]);
    expect(await counts(keys)).toEqual([total]);
    await saveSegment(keys, type.id, [['city', 'is', 'odd']], 1);
    expect(await counts(keys)).toEqual([total / 2]);
    const paged: number[] = [];
    await forEachSegmentRecipient(keys.account_id, 1, async (batch) => {
      paged.push(batch.length);
    }, 40);
    expect(paged).toEqual([40, 25]);
    await saveSegment(keys, type.id, [['city', 'is', 'nowhere']], 1);
    expect(await counts(keys)).toEqual([0]);
    expect(await members(keys)).toEqual([]);
  });

  it('applies a batch of changes (an import) in grouped writes', async () => {
    const keys = await setUp([['state', 'is', 'virginia']]);
    const now = new Date().toISOString();
    const imported: ContactRecord[] = Array.from({ length: 150 }, (_, i) => ({
      id: 1000 + i,
      user_id: keys.account_id,
      ...fields(keys.typeId, `row${i}@example.com`, { state: i < 120 ? 'Virginia' : 'Ohio' }),
      custom_field: null,
      subscription_status: 'confirmed',
      confirmed_at: null,
      deleted_at: null,
      created_at: now,
      updated_at: now,
    }));
    await syncContactSegmentsBatch(keys.account_id, imported.map((after) => ({ after })));
    expect(await counts(keys)).toEqual([120]);
    await syncContactSegmentsBatch(keys.account_id, imported.slice(0, 100).map((before) => ({ before })));
    expect(await counts(keys)).toEqual([20]);
    expect(await members(keys)).toHaveLength(20);
  });
});
