// Segments stored before their recipients were sharded and their count and exclusions had items of
// their own: recipients in the segment's one partition, the count and the exclusion set on the
// segment item, each written here exactly as the code before wrote them. The code now reads and
// changes them where they are (docs/operations.md, upgrade section): a send reaches each recipient
// once, counts stay right, and no address ends up in two items.
import { PutCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { handler as dispatchHandler } from '../../functions/send-dispatch/handler';
import { addContact, updateContact } from '../../shared/audience/contact-service';
import { addContactType } from '../../shared/contact-types/repository';
import type { ContactRecord } from '../../shared/contacts/record';
import { localQueueIdle } from '../../shared/queue/local-queue';
import { SEGMENT_RECIPIENT, segmentKey, segmentRecipientIdIndexKey, segmentRecipientPartition, segmentRecipientShardPartitions } from '../../shared/segments/keys';
import { contactEntry, type ManualEntry } from '../../shared/segments/recipients';
import { addSegment } from '../../shared/segments/repository';
import { getSingleSend } from '../../shared/single-sends/repository';
import { db, tableName } from '../../shared/table/client';
import { reserveIds } from '../../shared/table/ids';
import { queryAll } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { callSegments, listSegments, segmentContact } from '../support/segments';
import { mailsTo, readySend, startSendingEnvironment, type SendingEnvironment } from '../support/sending';

jest.setTimeout(120_000);

let env: SendingEnvironment;

beforeAll(async () => {
  env = await startSendingEnvironment();
});

afterAll(async () => {
  await env.stop();
});

type Keys = Awaited<ReturnType<typeof newAccount>>;

interface OldSegment {
  keys: Keys;
  typeId: number;
  segmentId: number;
  contacts: ContactRecord[];
  manual: string;
  tag: string;
}

/**
 * A segment of everyone in Kochi as the code before stored it: its contacts (added before the
 * segment existed, so nothing wrote them anywhere else) and one manual entry as recipient items in
 * the segment's one partition, keyed by the lower-cased address, with the id index; the count on the
 * segment item, which that code raised with every recipient it wrote.
 */
async function oldSegment(contactCount: number): Promise<OldSegment> {
  const keys = await newAccount();
  const accountId = keys.account_id;
  const type = await addContactType(accountId, 'Everyone');
  const tag = Math.random().toString(36).slice(2, 8);
  const contacts: ContactRecord[] = [];
  for (let i = 0; i < contactCount; i++) contacts.push(await addContact(accountId, segmentContact(type.id, `Old-${tag}-${i}@Example.com`), {}));
  const segment = await addSegment(accountId, {
    contact_type_id: type.id,
    segment_name: 'Kochi',
    conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'Kochi' }],
  });
  const manual: ManualEntry = { first_name: 'Hand', last_name: 'Written', email: `hand-${tag}@example.com` };
  const entries: { address: string; manual?: ManualEntry; contact?: ReturnType<typeof contactEntry> }[] = [
    ...contacts.map((contact) => ({ address: contact.email, contact: contactEntry({ ...contact, contact_id: contact.id }) })),
    { address: manual.email, manual },
  ];
  let id = await reserveIds(accountId, SEGMENT_RECIPIENT, entries.length);
  const now = new Date().toISOString();
  for (const entry of entries) {
    const recipientId = id++;
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          pk: segmentRecipientPartition(accountId, segment.id),
          sk: entry.address.toLowerCase(),
          ...segmentRecipientIdIndexKey(accountId, recipientId),
          entity: SEGMENT_RECIPIENT,
          id: recipientId,
          user_id: accountId,
          segment_id: segment.id,
          manual: entry.manual,
          contact: entry.contact,
          created_at: now,
          updated_at: now,
          version: 1,
        },
      }),
    );
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: segmentKey(accountId, segment.id),
        UpdateExpression: 'ADD segment_emails_count :delta',
        ConditionExpression: 'attribute_exists(pk)',
        ExpressionAttributeValues: { ':delta': 1 },
      }),
    );
  }
  return { keys, typeId: type.id, segmentId: segment.id, contacts, manual: manual.email, tag };
}

async function countOf(keys: Keys): Promise<unknown> {
  return (await listSegments(keys))[0]?.segment_emails_count;
}

async function recipientList(keys: Keys, segmentId: number): Promise<{ email: string; first_name: string }[]> {
  const { body } = await callSegments(keys, 'GET', 'segment/email/list', { query: { segment_id: segmentId, limit: 100 } });
  return (body.message as { contactEmails: { email: string; first_name: string }[] }).contactEmails.map(({ email, first_name }) => ({ email, first_name }));
}

/** Every recipient item of the segment, wherever it is: address -> how many items hold it. */
async function itemsPerAddress(accountId: number, segmentId: number): Promise<Map<string, number>> {
  const partitions = [...segmentRecipientShardPartitions(accountId, segmentId), segmentRecipientPartition(accountId, segmentId)];
  const items = (await Promise.all(partitions.map((partition) => queryAll({ partition })))).flat();
  const counts = new Map<string, number>();
  for (const item of items) counts.set(String(item.sk), (counts.get(String(item.sk)) ?? 0) + 1);
  return counts;
}

test('a single send to a segment stored before reaches each of its recipients once, those stored before and those added since', async () => {
  // Prepare
  const old = await oldSegment(3);
  const joined = await addContact(old.keys.account_id, segmentContact(old.typeId, `new-${old.tag}@example.com`), {});
  const send = await readySend(old.keys.account_id, { recipient_id: [{ id: String(old.segmentId), table: 'segments_' }] });
  const everyone = [...old.contacts.map((contact) => contact.email.toLowerCase()), old.manual, joined.email].sort();

  // Act
  await dispatchHandler({ accountId: old.keys.account_id, utr: send.utr });
  await localQueueIdle();
  await env.sink.eventsIdle();

  // Assess
  const mails = await mailsTo(env.sink, everyone);
  expect(mails.flatMap((mail) => mail.destination.to.map((to) => to.toLowerCase())).sort()).toEqual(everyone);
  expect(await getSingleSend(old.keys.account_id, send.utr)).toMatchObject({ status: 3, triggered: 5 });
});

test('the segment list counts the recipients stored before with those added since', async () => {
  // Prepare
  const old = await oldSegment(3);

  // Act
  const before = await countOf(old.keys);
  await addContact(old.keys.account_id, segmentContact(old.typeId, `new-${old.tag}@example.com`), {});
  const after = await countOf(old.keys);

  // Assess
  expect([before, after]).toEqual([4, 5]);
  expect((await recipientList(old.keys, old.segmentId)).map((recipient) => recipient.email)).toHaveLength(5);
});

test('membership changes on a segment stored before change its items where they are and keep its count right', async () => {
  // Prepare
  const old = await oldSegment(3);
  const [renamed, moved, deleted] = old.contacts as [ContactRecord, ContactRecord, ContactRecord];

  // Act: one contact renamed (still in), one moved out of Kochi, one recipient deleted by hand.
  await updateContact(old.keys.account_id, renamed.id, segmentContact(old.typeId, renamed.email, { first_name: 'Renamed' }), {});
  await updateContact(old.keys.account_id, moved.id, segmentContact(old.typeId, moved.email, { city: 'Pune' }), {});
  const listed = await callSegments(old.keys, 'GET', 'segment/email/list', { query: { segment_id: old.segmentId, limit: 100 } });
  const gone = (listed.body.message as { contactEmails: { id: number; email: string }[] }).contactEmails.find((recipient) => recipient.email === deleted.email);
  const deletion = await callSegments(old.keys, 'DELETE', 'segment/email/delete', { query: { segment_recipient_id: Number(gone?.id) } });
  // The deleted contact is excluded: changing it does not bring it back.
  await updateContact(old.keys.account_id, deleted.id, segmentContact(old.typeId, deleted.email, { first_name: 'Still out' }), {});

  // Assess
  expect(deletion.status).toBe(200);
  expect(await countOf(old.keys)).toBe(2);
  expect(await recipientList(old.keys, old.segmentId)).toEqual(
    [
      { email: renamed.email, first_name: 'Renamed' },
      { email: old.manual, first_name: 'Hand' },
    ].sort((a, b) => a.email.toLowerCase().localeCompare(b.email.toLowerCase())),
  );
  expect([...(await itemsPerAddress(old.keys.account_id, old.segmentId))]).toEqual([
    [old.manual, 1],
    [renamed.email.toLowerCase(), 1],
  ].sort(([a], [b]) => String(a).localeCompare(String(b))));
});
