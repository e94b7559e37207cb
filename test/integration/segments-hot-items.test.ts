// No hot or growing item behind a segment: its recipients spread over 16 partitions, membership
// writes never touch the segment item (counts live in counter items of their own), and exclusions
// are items, so the segment item keeps its size however many contacts are taken out. Segments stored
// before (a count and an exclusion set on the segment item) still read correctly.
import { GetCommand, UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { addContactType } from '../../shared/contact-types/repository';
import { addContact, importContactRows, updateContact } from '../../shared/audience/contact-service';
import { segmentKey, segmentRecipientShardPartitions, segmentRecipientShards } from '../../shared/segments/keys';
import { applyMembershipChanges } from '../../shared/segments/recipient-changes';
import { db, tableName } from '../../shared/table/client';
import { queryAll } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { callSegments, listSegments, segmentContact, segmentForm } from '../support/segments';

jest.setTimeout(180_000);

type Account = Awaited<ReturnType<typeof newAccount>>;

const fieldsImported = new Set(['first_name', 'last_name', 'email', 'country', 'state', 'city', 'address_line1', 'postal_code']);

async function accountWithSegment(): Promise<{ keys: Account; typeId: number; segmentId: number }> {
  const keys = await newAccount();
  const type = await addContactType(keys.account_id, 'Everyone');
  expect((await callSegments(keys, 'POST', 'segment/save', { body: segmentForm(type.id, 'Kochi', [['city', 'is', 'Kochi']]) })).status).toBe(200);
  return { keys, typeId: type.id, segmentId: 1 };
}

async function importContacts(accountId: number, typeId: number, count: number, prefix: string): Promise<void> {
  const rows = Array.from({ length: count }, (_, i) => ({ line: i + 2, fields: segmentContact(typeId, `${prefix}${i}@example.com`), customValues: {} }));
  for (let start = 0; start < rows.length; start += 500) await importContactRows(accountId, typeId, rows.slice(start, start + 500), fieldsImported);
}

async function segmentItemBytes(accountId: number, segmentId: number): Promise<number> {
  const item = (await db().send(new GetCommand({ TableName: tableName(), Key: segmentKey(accountId, segmentId) }))).Item;
  return Buffer.byteLength(JSON.stringify(item, (_, value: unknown) => (value instanceof Set ? [...(value as Set<unknown>)] : value)), 'utf8');
}

async function recipientPage(keys: Account, limit: number): Promise<{ id: number; email: string }[]> {
  const { body } = await callSegments(keys, 'GET', 'segment/email/list', { query: { segment_id: 1, limit } });
  return (body.message as { contactEmails: { id: number; email: string }[] }).contactEmails;
}

/** The keys every transaction and write names while `work` runs. */
async function writtenKeys(work: () => Promise<unknown>): Promise<string[]> {
  const keys: string[] = [];
  const name = 'writtenKeys';
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const input = args.input as { TransactItems?: Record<string, { Key?: { pk: string }; Item?: { pk: string } }>[]; Key?: { pk: string }; Item?: { pk: string } };
      for (const action of input.TransactItems ?? []) for (const body of Object.values(action)) keys.push(String((body.Key ?? body.Item)?.pk));
      if (['PutItemCommand', 'UpdateItemCommand', 'DeleteItemCommand'].includes(String(context.commandName))) keys.push(String((input.Key ?? input.Item)?.pk));
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await work();
  } finally {
    db().middlewareStack.remove(name);
  }
  return keys;
}

describe('segments without hot or growing items', () => {
  test('an import into a segmented type spreads the recipients over the 16 shards and never writes the segment item', async () => {
    // Prepare
    const { keys, typeId } = await accountWithSegment();

    // Act
    const written = await writtenKeys(() => importContacts(keys.account_id, typeId, 320, 'spread'));

    // Assess
    const perShard = await Promise.all(segmentRecipientShardPartitions(keys.account_id, 1).map(async (partition) => (await queryAll({ partition })).length));
    expect(perShard).toHaveLength(segmentRecipientShards);
    expect(perShard.reduce((sum, n) => sum + n, 0)).toBe(320);
    expect(Math.min(...perShard)).toBeGreaterThan(0);
    expect(Math.max(...perShard)).toBeLessThan(320 / 4);
    expect(written).not.toContain(segmentKey(keys.account_id, 1).pk);
    expect((await listSegments(keys))[0]).toMatchObject({ segment_emails_count: 320, build_status: 'ready' });
  });

  test('taking matched contacts out by hand leaves the segment item its size: each exclusion is a small item of its own', async () => {
    // Prepare
    const { keys, typeId } = await accountWithSegment();
    await importContacts(keys.account_id, typeId, 60, 'out');
    const before = await segmentItemBytes(keys.account_id, 1);

    // Act: 50 of the 60 recipients deleted, so their contacts are excluded.
    const page = await recipientPage(keys, 50);
    for (const recipient of page) {
      const result = await callSegments(keys, 'DELETE', 'segment/email/delete', { query: { segment_recipient_id: recipient.id } });
      expect(result.status).toBe(200);
    }
    const exclusions = await queryAll({ partition: `A#${keys.account_id}#segment-exclusion#1` });

    // Assess: the item does not grow with exclusions (it would pass 400 KB at about 100,000 of them).
    expect(await segmentItemBytes(keys.account_id, 1)).toBe(before);
    expect(exclusions).toHaveLength(50);
    for (const exclusion of exclusions) expect(Buffer.byteLength(JSON.stringify(exclusion), 'utf8')).toBeLessThan(200);
    expect((await listSegments(keys))[0]).toMatchObject({ segment_emails_count: 10 });

    // An excluded contact stays out when it changes and when the segment is rebuilt.
    const update = await callSegments(keys, 'POST', 'segment/update', { body: segmentForm(typeId, 'Kochi again', [['city', 'is', 'Kochi']], { segment_id: 1 }) });
    expect(update.status).toBe(200);
    expect((await listSegments(keys))[0]).toMatchObject({ segment_emails_count: 10, build_status: 'ready' });
    expect((await recipientPage(keys, 100)).map((recipient) => recipient.email).sort()).toEqual(
      Array.from({ length: 60 }, (_, i) => `out${i}@example.com`).filter((email) => !page.some((gone) => gone.email === email)).sort(),
    );
  });

  test('a segment stored before counts and exclusions moved out keeps its count and its excluded contacts', async () => {
    // Prepare: the count and exclusion set as a segment item held them.
    const { keys, typeId } = await accountWithSegment();
    const excluded = await addContact(keys.account_id, segmentContact(typeId, 'old-excluded@example.com', { city: 'Pune' }), {});
    await applyMembershipChanges(keys.account_id, 1, [{ kind: 'manual-in', entry: { first_name: 'Old', last_name: 'Entry', email: 'old@example.com' } }]);
    await db().send(
      new UpdateCommand({
        TableName: tableName(),
        Key: segmentKey(keys.account_id, 1),
        UpdateExpression: 'SET segment_emails_count = :count ADD excluded_contact_ids :excluded',
        ExpressionAttributeValues: { ':count': 7, ':excluded': new Set([excluded.id]) },
      }),
    );

    // Act
    await updateContact(keys.account_id, excluded.id, segmentContact(typeId, 'old-excluded@example.com'), {});
    await addContact(keys.account_id, segmentContact(typeId, 'new@example.com'), {});

    // Assess: 7 stored on the item, 1 manual entry and 1 contact counted by the counters.
    expect((await listSegments(keys))[0]).toMatchObject({ segment_emails_count: 9 });
    expect((await recipientPage(keys, 10)).map((recipient) => recipient.email)).toEqual(['new@example.com', 'old@example.com']);
  });
});
