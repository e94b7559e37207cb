// The per-address suppression state on DynamoDB Local: after every kind of add and delete on the
// global list, the unsubscribe groups and the bounce list (through the handlers and the functions the
// unsubscribe pages and SES events call), the state items say exactly what the lists say.
import { handler as globalHandler } from '../../functions/global-unsubscribes/handler';
import { handler as groupHandler } from '../../functions/unsubscribe-groups/handler';
import { handler as suppressionsHandler } from '../../functions/suppressions/handler';
import { addBouncedAddress } from '../../shared/suppressions/bounces';
import { stateMarker } from '../../shared/suppressions/state';
import { addGlobalUnsubscribe, addToUnsubscribeGroup, removeFromUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { newAccount } from '../support/accounts';
import { handlerCaller, multipart, urlencoded, type Keys } from '../support/events';
import { expectAgreement, on, states } from '../support/suppression-state';

type Account = Keys & { account_id: number };

const globalCall = handlerCaller(globalHandler);
const groupCall = handlerCaller(groupHandler);
const suppressionsCall = handlerCaller(suppressionsHandler);

const deleted = { status: 200, body: { status: 'success', message: 'Deleted Successfully' } };

async function entryIds(keys: Keys, path: string, query: Record<string, number> = {}): Promise<Map<string, number>> {
  const call = path.startsWith('global') ? globalCall : groupCall;
  const { body } = await call(keys, 'GET', path, { query });
  const message = body.message as Record<string, { id: number; email_address: string }[]>;
  const rows = Object.values(message).find(Array.isArray) ?? [];
  return new Map(rows.map((row) => [row.email_address, row.id]));
}

let owner: Account;

beforeEach(async () => {
  owner = await newAccount('State');
});

test('a new account\'s suppression state is complete from its creation', async () => {
  expect(await stateMarker(owner.account_id)).toEqual({ status: 'complete' });
  expect(await states(owner.account_id)).toEqual({});
});

test('the global list\'s adds and deletes (API, bulk, unsubscribe page) keep the state in agreement', async () => {
  const accountId = owner.account_id;
  expect((await globalCall(owner, 'POST', 'global-unsubscribes/save', { body: multipart({ email_address: 'Ann@Example.com,bob@example.com,cid@example.com,dee@example.com' }) })).status).toBe(200);
  // The unsubscribe page and the one-click List-Unsubscribe both call this.
  await addGlobalUnsubscribe(accountId, 'eve@example.com');
  await addGlobalUnsubscribe(accountId, 'ANN@example.com');
  await expectAgreement(accountId, {
    'ann@example.com': on({ global: true }),
    'bob@example.com': on({ global: true }),
    'cid@example.com': on({ global: true }),
    'dee@example.com': on({ global: true }),
    'eve@example.com': on({ global: true }),
  });

  const ids = await entryIds(owner, 'global-unsubscribes');
  expect((await globalCall(owner, 'DELETE', 'global-unsubscribes/delete', { query: { id: Number(ids.get('Ann@example.com')) } })).status).toBe(200);
  const bulk = urlencoded({ strIds: [Number(ids.get('bob@example.com')), Number(ids.get('cid@example.com'))] });
  expect(await globalCall(owner, 'POST', 'global-unsubscribes/bulk-delete', { body: bulk })).toEqual(deleted);
  await expectAgreement(accountId, { 'dee@example.com': on({ global: true }), 'eve@example.com': on({ global: true }) });
});

test('group recipients\' adds and deletes (API, bulk across groups, preferences page) keep the state in agreement, the global flag untouched', async () => {
  const accountId = owner.account_id;
  const news = await addUnsubscribeGroup(accountId, { group_name: 'News', description: 'News', is_display: 1 });
  const offers = await addUnsubscribeGroup(accountId, { group_name: 'Offers', description: 'Offers', is_display: 1 });
  await addGlobalUnsubscribe(accountId, 'ann@example.com');
  for (const group of [news, offers]) {
    const added = await groupCall(owner, 'POST', 'unsubscribes-groups/manually-add', { body: multipart({ unsubscribe_groups_id: group.id, email_address: 'ann@example.com,bob@example.com,cid@example.com' }) });
    expect(added.status).toBe(200);
  }
  // The preferences page leaves and re-joins groups through these.
  await addToUnsubscribeGroup(accountId, news.id, 'dee@example.com');
  await expectAgreement(accountId, {
    'ann@example.com': on({ global: true, groups: [news.id, offers.id] }),
    'bob@example.com': on({ groups: [news.id, offers.id] }),
    'cid@example.com': on({ groups: [news.id, offers.id] }),
    'dee@example.com': on({ groups: [news.id] }),
  });

  const inNews = await entryIds(owner, 'unsubscribes-groups/recipients-list', { groupId: news.id });
  const inOffers = await entryIds(owner, 'unsubscribes-groups/recipients-list', { groupId: offers.id });
  expect((await groupCall(owner, 'DELETE', 'unsubscribes-groups/recipients-delete', { query: { id: Number(inNews.get('ann@example.com')) } })).status).toBe(200);
  // One address in both groups, deleted in one request: two changes of its one state item.
  const bulk = urlencoded({ strIds: [inNews.get('bob@example.com'), inOffers.get('bob@example.com'), inOffers.get('cid@example.com')].map(Number) });
  expect(await groupCall(owner, 'POST', 'unsubscribes-groups/recipients-bulk-delete', { body: bulk })).toEqual(deleted);
  expect(await removeFromUnsubscribeGroup(accountId, news.id, 'DEE@example.com')).toBe(true);
  await expectAgreement(accountId, {
    'ann@example.com': on({ global: true, groups: [offers.id] }),
    'cid@example.com': on({ groups: [news.id] }),
  });
});

test('bounces and complaints recorded, reported again and deleted keep the state in agreement', async () => {
  const accountId = owner.account_id;
  await addBouncedAddress(accountId, 'Zed@Example.com', 'bounce', 'General');
  await addBouncedAddress(accountId, 'amy@example.com', 'complaint', 'abuse');
  await addBouncedAddress(accountId, 'amy@example.com', 'bounce', null);
  await addGlobalUnsubscribe(accountId, 'amy@example.com');
  await expectAgreement(accountId, { 'zed@example.com': on({ bounced: true }), 'amy@example.com': on({ global: true, bounced: true }) });

  expect((await suppressionsCall(owner, 'DELETE', 'suppressions/delete', { query: { email: 'AMY@example.com' } })).status).toBe(200);
  await expectAgreement(accountId, { 'zed@example.com': on({ bounced: true }), 'amy@example.com': on({ global: true }) });
});
