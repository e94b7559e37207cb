// An account stored before the per-address suppression state: its backfill (a background job, run in
// process by the real `jobs` consumer) writes exactly the state its lists say, then sets the marker;
// an entry deleted while the backfill runs does not stay suppressed; two starters start one job.
import { addBouncedAddress, deleteBouncedAddress } from '../../shared/suppressions/bounces';
import { addToSuppressionList, removeFromSuppressionList } from '../../shared/suppressions/repository';
import { addressSuppressionMarkerKey } from '../../shared/suppressions/state-keys';
import { stateMarker } from '../../shared/suppressions/state';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { suppressionStateReady } from '../../shared/background-jobs/suppression-state-backfill';
import { db } from '../../shared/table/client';
import { putItem } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { jobsOf, jobsSettled } from '../support/jobs';
import { asStoredBeforeState, expectAgreement, lists, on, states } from '../support/suppression-state';

/** An account with entries on every list, some addresses on several, stored as before the state existed. */
async function accountStoredBefore() {
  const { account_id: accountId } = await newAccount('Backfill');
  const news = await addUnsubscribeGroup(accountId, { group_name: 'News', description: 'News', is_display: 1 });
  const offers = await addUnsubscribeGroup(accountId, { group_name: 'Offers', description: 'Offers', is_display: 1 });
  // More than a page of the backfill (200) on the global list.
  const many = Array.from({ length: 230 }, (_, i) => `reader-${String(i).padStart(3, '0')}@example.com`);
  await addToSuppressionList({ accountId, groupId: null }, [...many, 'Ann@Example.com']);
  await addToSuppressionList({ accountId, groupId: news.id }, ['ann@example.com', 'bob@example.com']);
  await addToSuppressionList({ accountId, groupId: offers.id }, ['bob@example.com', 'cid@example.com']);
  await addBouncedAddress(accountId, 'ann@example.com', 'bounce', 'General');
  await addBouncedAddress(accountId, 'dee@example.com', 'complaint', 'abuse');
  await asStoredBeforeState(accountId);
  return { accountId, news, offers, many };
}

test('the backfill writes exactly the state of the lists stored before it, then marks the state complete', async () => {
  const { accountId, news, offers, many } = await accountStoredBefore();
  expect(await states(accountId)).toEqual({});

  expect(await suppressionStateReady(accountId)).toBe(false);
  const [job] = await jobsSettled(accountId);

  expect(job).toMatchObject({ kind: 'suppression-state-backfill', target: String(accountId), status: 'completed', processed: 231 + 4 + 2 });
  await expectAgreement(accountId, {
    ...Object.fromEntries(many.map((address) => [address, on({ global: true })])),
    'ann@example.com': on({ global: true, groups: [news.id], bounced: true }),
    'bob@example.com': on({ groups: [news.id, offers.id] }),
    'cid@example.com': on({ groups: [offers.id] }),
    'dee@example.com': on({ bounced: true }),
  });
  expect(await stateMarker(accountId)).toEqual({ status: 'complete' });
  expect(await suppressionStateReady(accountId)).toBe(true);
  expect(await jobsOf(accountId)).toHaveLength(1);
});

test('an entry deleted after the backfill read it, before it wrote its state, does not stay suppressed', async () => {
  const { accountId, news } = await accountStoredBefore();
  // Each list's first backfill write meets a delete of one address it read, committed just before it.
  const deletes: Record<string, () => Promise<unknown>> = {
    'A#N#global-unsubscribe-address': () => removeFromSuppressionList({ accountId, groupId: null }, 'reader-007@example.com'),
    'A#N#unsubscribe-group-address#N': () => removeFromSuppressionList({ accountId, groupId: news.id }, 'bob@example.com'),
    'A#N#bounced-address': () => deleteBouncedAddress(accountId, 'dee@example.com'),
  };
  const name = `backfill-deletes-${Math.random()}`;
  db().middlewareStack.add(
    (next, context) => async (args) => {
      const items = (args.input as { TransactItems?: { ConditionCheck?: { Key?: { pk?: string } } }[] }).TransactItems;
      const checked = context.commandName === 'TransactWriteItemsCommand' ? items?.[0]?.ConditionCheck?.Key?.pk : undefined;
      const list = checked?.replace(/\d+/g, 'N');
      const remove = list === undefined ? undefined : deletes[list];
      if (list !== undefined && remove) {
        delete deletes[list];
        await remove();
      }
      return next(args);
    },
    { step: 'initialize', name },
  );
  try {
    await suppressionStateReady(accountId);
    await jobsSettled(accountId);
  } finally {
    db().middlewareStack.remove(name);
  }

  expect(deletes).toEqual({});
  const listed = await lists(accountId);
  expect(listed['reader-007@example.com']).toBeUndefined();
  expect(listed['bob@example.com']).toEqual(on({ groups: [expect.any(Number) as number] }));
  expect(listed['dee@example.com']).toBeUndefined();
  expect(await states(accountId)).toEqual(listed);
  expect(await stateMarker(accountId)).toEqual({ status: 'complete' });
});

test('two starters at once start one backfill', async () => {
  const { accountId } = await accountStoredBefore();

  expect(await Promise.all([suppressionStateReady(accountId), suppressionStateReady(accountId), suppressionStateReady(accountId)])).toEqual([false, false, false]);
  const jobs = await jobsSettled(accountId);

  expect(jobs.map((job) => [job.kind, job.status])).toEqual([['suppression-state-backfill', 'completed']]);
  expect(await stateMarker(accountId)).toEqual({ status: 'complete' });
});

test('a backfill whose job is gone without completing is started again', async () => {
  const { accountId } = await accountStoredBefore();
  // The marker names a job that no longer exists (its item expired after it failed).
  await putItem({ Item: { ...addressSuppressionMarkerKey(accountId), status: 'building', job_id: 999 } });

  expect(await suppressionStateReady(accountId)).toBe(false);
  const jobs = await jobsSettled(accountId);

  expect(jobs.map((job) => job.status)).toEqual(['completed']);
  expect(await stateMarker(accountId)).toEqual({ status: 'complete' });
  expect(await states(accountId)).toEqual(await lists(accountId));
});
