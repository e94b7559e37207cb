// contacts/bulk-delete on DynamoDB Local with more contacts than one transaction holds, each listed
// in two segments: all or nothing for the client, each contact leaving its segments in the
// transaction that deletes it, a failure in a later group answered as a failure (not as not found),
// and the same request sent again finishing the delete.
import { GetCommand, PutCommand, DeleteCommand } from '@aws-sdk/lib-dynamodb';
import { contactTypeKey } from '../../shared/contact-types/keys';
import { importContactRows, updateContact } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-lookup';
import { removeContacts, type ContactFields } from '../../shared/contacts/repository';
import { segmentDepartures } from '../../shared/segments/departures';
import { db, tableName } from '../../shared/table/client';
import { newAccount } from '../support/accounts';
import { addType, callContacts, contactCounts, listContacts, type Account } from '../support/contacts';
import { urlencoded } from '../support/events';
import { callSegments, listSegments, segmentContact, segmentForm } from '../support/segments';

interface Audience {
  keys: Account;
  typeId: number;
  /** Two segments of the type, both matching every contact in Kochi. */
  segmentIds: number[];
  ids: number[];
}

function emailOf(i: number): string {
  return `reader-${String(i).padStart(3, '0')}@example.com`;
}

/** `count` contacts in Kochi (ids 1..count) listed in two segments; segment 1 also holds a manual entry at contact 1's address. */
async function audience(count: number): Promise<Audience> {
  const keys = await newAccount();
  const typeId = await addType(keys, 'Readers');
  for (const name of ['Kochi', 'Kochi too']) {
    expect((await callSegments(keys, 'POST', 'segment/save', { body: segmentForm(typeId, name, [['city', 'is', 'Kochi']]) })).status).toBe(200);
  }
  const segmentIds = (await listSegments(keys)).map((segment) => Number(segment.id));
  const rows: ImportRow[] = Array.from({ length: count }, (_, i) => ({ line: i + 2, fields: segmentContact(typeId, emailOf(i + 1)), customValues: {} }));
  await importContactRows(keys.account_id, typeId, rows, new Set(['first_name', 'last_name', 'email', 'country', 'state', 'city', 'address_line1', 'postal_code']));
  const manual = { segment_id: segmentIds[0] as number, first_name: 'Hand', last_name: 'Added', email: emailOf(1) };
  expect((await callSegments(keys, 'POST', 'segment/email/store', { body: urlencoded(manual) })).status).toBe(200);
  const ids = (await listContacts(keys)).map((contact) => Number(contact.id));
  expect(ids).toHaveLength(count);
  return { keys, typeId, segmentIds, ids };
}

/** Each segment's recipients (contact id, or null for a manual entry) and its count, as the API shows them. */
async function segmentState(target: Audience) {
  const counts = new Map((await listSegments(target.keys)).map((segment) => [Number(segment.id), Number(segment.segment_emails_count)]));
  return Promise.all(
    target.segmentIds.map(async (segmentId) => {
      const { body } = await callSegments(target.keys, 'GET', 'segment/email/list', { query: { segment_id: segmentId } });
      const recipients = (body.message as { contactEmails: { contact_id: number | null }[] }).contactEmails;
      return { contacts: recipients.flatMap((recipient) => (recipient.contact_id === null ? [] : [recipient.contact_id])).sort((a, b) => a - b), listed: recipients.length, count: counts.get(segmentId) };
    }),
  );
}

function bulkDelete(keys: Account, ids: number[]) {
  return callContacts(keys, 'POST', 'contacts/bulk-delete', { body: urlencoded({ strIds: ids }) });
}

const deletedSuccessfully = { status: 200, body: { status: 'success', message: 'Deleted Successfully' } };

describe('contacts/bulk-delete of many contacts', () => {
  it('deletes all of them, each out of its segments, with counts and email claims released', async () => {
    const target = await audience(60);

    expect(await bulkDelete(target.keys, target.ids)).toEqual(deletedSuccessfully);

    expect(await listContacts(target.keys)).toEqual([]);
    expect(await contactCounts(target.keys)).toEqual({ [target.typeId]: 0 });
    // Segment 1 keeps only the manual entry at contact 1's address; segment 2 is empty.
    expect(await segmentState(target)).toEqual([
      { contacts: [], listed: 1, count: 1 },
      { contacts: [], listed: 0, count: 0 },
    ]);
    const again = await callContacts(target.keys, 'POST', 'contacts/add', { body: urlencoded({ contact_type_id: target.typeId, email: emailOf(7), country: 101 }) });
    expect(again.status).toBe(200);
  }, 90_000);

  it('deletes nothing when one id is unknown, even after many known ones', async () => {
    const target = await audience(60);

    expect(await bulkDelete(target.keys, [...target.ids, 9999])).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });

    expect(await listContacts(target.keys)).toHaveLength(60);
    expect(await contactCounts(target.keys)).toEqual({ [target.typeId]: 60 });
    expect((await segmentState(target)).map((segment) => segment.contacts.length)).toEqual([60, 60]);
  }, 90_000);

  it('refuses more than 1,000 ids with a validation message', async () => {
    const keys = await newAccount();
    const ids = Array.from({ length: 1001 }, (_, i) => i + 1);
    expect(await bulkDelete(keys, ids)).toEqual({ status: 422, body: { status: 'failed', errors: { strIds: ['The str ids field must not have more than 1000 items.'] } } });
  });

  it('answers a later group that keeps failing as a failure, leaves no deleted contact in a segment, and finishes when sent again', async () => {
    // Prepare: after the 60 contacts, one of a second type whose type item is gone, so its group's
    // count change is refused until the type item is back.
    const target = await audience(60);
    const brokenType = await addType(target.keys, 'Broken');
    const added = await callContacts(target.keys, 'POST', 'contacts/add', { body: urlencoded({ contact_type_id: brokenType, email: 'last@example.com', country: 101 }) });
    expect(added.status).toBe(200);
    const ids = (await listContacts(target.keys)).map((contact) => Number(contact.id));
    const typeItem = (await db().send(new GetCommand({ TableName: tableName(), Key: contactTypeKey(target.keys.account_id, brokenType) }))).Item;
    await db().send(new DeleteCommand({ TableName: tableName(), Key: contactTypeKey(target.keys.account_id, brokenType) }));

    // Act
    const first = await bulkDelete(target.keys, ids);

    // Assess: a failure, not "Record Not Found"; earlier groups are deleted, each contact whole.
    expect(first).toEqual({ status: 500, body: { status: 'failed', errors: 'Internal server error.' } });
    const left = (await listContacts(target.keys)).map((contact) => Number(contact.id)).filter((id) => id <= 60);
    expect(left.length).toBeLessThan(60);
    expect((await contactCounts(target.keys))[target.typeId]).toBe(left.length);
    // Every contact still listed in a segment still exists.
    const segments = await segmentState(target);
    for (const segment of segments) {
      expect(segment.contacts).toEqual(left);
      expect(segment.count).toBe(segment.listed);
    }

    // Act: the type item is back; the same request is sent again.
    await db().send(new PutCommand({ TableName: tableName(), Item: typeItem }));
    const second = await bulkDelete(target.keys, ids);

    // Assess
    expect(second).toEqual(deletedSuccessfully);
    expect(await listContacts(target.keys)).toEqual([]);
    expect(await segmentState(target)).toEqual([
      { contacts: [], listed: 1, count: 1 },
      { contacts: [], listed: 0, count: 0 },
    ]);
  }, 90_000);

  it('deletes a contact listed in more segments than its delete transaction could hold', async () => {
    // Prepare: 50 segments of one type match the contact: 50 entries and 50 counts, over 100 actions.
    const keys = await newAccount();
    const typeId = await addType(keys, 'Readers');
    for (let i = 0; i < 50; i++) {
      expect((await callSegments(keys, 'POST', 'segment/save', { body: segmentForm(typeId, `Kochi ${i}`, [['city', 'is', 'Kochi']]) })).status).toBe(200);
    }
    const rows: ImportRow[] = [{ line: 2, fields: segmentContact(typeId, emailOf(1)), customValues: {} }];
    await importContactRows(keys.account_id, typeId, rows, new Set(['email', 'country', 'city']));
    const [contact] = await listContacts(keys);
    expect((await listSegments(keys)).map((segment) => segment.segment_emails_count)).toEqual(Array(50).fill(1));

    // Act
    expect(await bulkDelete(keys, [Number(contact?.id)])).toEqual(deletedSuccessfully);

    // Assess
    expect(await listContacts(keys)).toEqual([]);
    expect((await listSegments(keys)).map((segment) => segment.segment_emails_count)).toEqual(Array(50).fill(0));
    expect(await contactCounts(keys)).toEqual({ [typeId]: 0 });
  }, 120_000);

  it('deletes a contact updated between the read and the write, as it is after the update', async () => {
    // Prepare: right after the first plan, contact 50 moves out of Kochi (leaving both segments) and
    // contact 51 changes its name (its segment entries are rewritten).
    const target = await audience(60);
    const accountId = target.keys.account_id;
    let plans = 0;
    const moved: ContactFields = segmentContact(target.typeId, emailOf(50), { city: 'Pune' });
    const renamed: ContactFields = segmentContact(target.typeId, emailOf(51), { first_name: 'Grace' });
    const companions = async (contacts: Parameters<typeof segmentDepartures>[1]) => {
      const departures = await segmentDepartures(accountId, contacts);
      if (++plans === 1) {
        await updateContact(accountId, 50, moved, {});
        await updateContact(accountId, 51, renamed, {});
      }
      return departures;
    };

    // Act
    const deleted = await removeContacts(accountId, target.ids, companions);

    // Assess: all deleted, the two changed ones as they were after the change.
    expect(deleted).toHaveLength(60);
    expect(deleted.find((contact) => contact.id === 50)?.city).toBe('Pune');
    expect(deleted.find((contact) => contact.id === 51)?.first_name).toBe('Grace');
    expect(plans).toBeGreaterThan(1);
    expect(await listContacts(target.keys)).toEqual([]);
    expect(await segmentState(target)).toEqual([
      { contacts: [], listed: 1, count: 1 },
      { contacts: [], listed: 0, count: 0 },
    ]);
  }, 90_000);
});
