// Enrolments are write-sharded: one automation's enrolments spread over 16 partitions and the due
// index over 32 shards, so an import cannot make one hot partition. Enrolments stored before the
// shards (in the automation's one partition) are still read, moved on, and never enrolled twice.
import { PutCommand } from '@aws-sdk/lib-dynamodb';
import { dueShards } from '../../shared/automations/buckets';
import { advanceEnrolment, deleteEnrolments, enrolContacts, getEnrolment, listEnrolments } from '../../shared/automations/enrolments';
import { automationEnrolmentShardPartitions, automationEnrolmentShards, legacyEnrolmentKey } from '../../shared/automations/keys';
import { db, tableName } from '../../shared/table/client';
import { queryAll } from '../../shared/table/records';
import { newAccount } from '../support/accounts';

const utr = '33333333-2222-4333-8444-555555555555';

// 1,000 enrolments written one by one: minutes on a loaded machine, never a measure of speed.
jest.setTimeout(180_000);

describe('automation enrolments over shards', () => {
  test('1,000 joiners of one automation spread evenly over its 16 enrolment partitions and over the due index shards', async () => {
    // Prepare
    const { account_id: accountId } = await newAccount();
    const joiners = Array.from({ length: 1000 }, (_, i) => ({ contactId: i + 1, email: `c${i + 1}@example.com` }));

    // Act
    const created = await enrolContacts(accountId, utr, joiners, new Date());

    // Assess
    expect(created).toBe(1000);
    const perShard = await Promise.all(automationEnrolmentShardPartitions(accountId, utr).map(async (partition) => (await queryAll({ partition })).length));
    expect(perShard).toHaveLength(automationEnrolmentShards);
    expect(Math.max(...perShard) - Math.min(...perShard)).toBeLessThanOrEqual(1);
    const enrolments = await listEnrolments(accountId, utr);
    expect(enrolments.map((enrolment) => enrolment.contactId)).toEqual(joiners.map((joiner) => joiner.contactId));
    const items = (await Promise.all(automationEnrolmentShardPartitions(accountId, utr).map((partition) => queryAll({ partition })))).flat();
    const dueShardsUsed = new Set(items.map((item) => String(item.gsi1pk).split('#').at(-1)));
    expect(dueShards).toBeGreaterThanOrEqual(16);
    expect(dueShardsUsed.size).toBe(dueShards);
  });

  test('an enrolment stored before the shards is listed, moved on where it is, and its contact is not enrolled again', async () => {
    // Prepare
    const { account_id: accountId } = await newAccount();
    const dueAt = new Date();
    await db().send(
      new PutCommand({
        TableName: tableName(),
        Item: {
          ...legacyEnrolmentKey(accountId, utr, 7),
          entity: 'automation-enrolment',
          account_id: accountId,
          automation_utr: utr,
          contact_id: 7,
          email: 'old@example.com',
          last_step_id: 0,
          due_at: dueAt.toISOString(),
          state: 'active',
          enrolled_at: dueAt.toISOString(),
        },
      }),
    );

    // Act
    const created = await enrolContacts(accountId, utr, [{ contactId: 7, email: 'old@example.com' }, { contactId: 8, email: 'new@example.com' }], dueAt);
    const old = (await getEnrolment(accountId, utr, 7))!;
    const moved = await advanceEnrolment(old, 5, new Date(dueAt.getTime() + 3_600_000));

    // Assess
    expect(created).toBe(1);
    expect(moved).toBe(true);
    expect((await listEnrolments(accountId, utr)).map((enrolment) => [enrolment.contactId, enrolment.lastStepId])).toEqual([[7, 5], [8, 0]]);
    expect((await getEnrolment(accountId, utr, 7))?.key).toEqual(legacyEnrolmentKey(accountId, utr, 7));
    expect(await deleteEnrolments(accountId, utr)).toBe(2);
  });
});
