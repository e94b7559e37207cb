// The unsubscribe preferences page through the public-pages handler: what it lists and shows, what
// each form choice changes (group, rejoin, everything), the unsubscribe count, and refused requests.
import { listSuppressionList } from '../../shared/suppressions/repository';
import { addGlobalUnsubscribe, addToUnsubscribeGroup, isGloballyUnsubscribed, isInUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import { listUnsubscribeGroups } from '../../shared/suppressions/unsubscribe-groups';
import { newAccount } from '../support/accounts';
import {
  expectHtmlPage,
  newGroup,
  openPage,
  recipientToken,
  retargeted,
  sendStatistics,
  storedSingleSend,
  submitPreferences,
} from '../support/recipient-pages';

const reader = 'reader@example.com';

/** An account with two displayed groups and a hidden one, a send using the first, and the reader's token. */
async function setting() {
  const { account_id } = await newAccount();
  const news = await newGroup(account_id, 'Newsletter');
  const offers = await newGroup(account_id, 'Offers');
  const internal = await newGroup(account_id, 'Internal notices', 0);
  const ref = await storedSingleSend(account_id, news.id);
  return { accountId: account_id, news, offers, internal, ref, token: recipientToken(ref, reader, news.id) };
}

async function groupAddresses(accountId: number, groupId: number | null): Promise<string[]> {
  return (await listSuppressionList({ accountId, groupId })).map((entry) => entry.email_address);
}

/** The `<li>` of one group on the page. */
function groupItem(html: string, groupName: string): string {
  const item = html.split('<li>').find((part) => part.includes(`<h3>${groupName}</h3>`));
  if (!item) throw new Error(`No group ${groupName} on the page`);
  return item.slice(0, item.indexOf('</li>'));
}

describe('unsubscribe preferences page', () => {
  it('lists only the displayed groups, each with the address\'s state and the matching button', async () => {
    const { accountId, offers, token } = await setting();
    await addToUnsubscribeGroup(accountId, offers.id, reader);
    // Act
    const html = expectHtmlPage(await openPage('public/preferences', token), 200);
    // Assess
    expect(html).toContain('<title>Email preferences</title>');
    expect(html).not.toContain('Internal notices');
    const news = groupItem(html, 'Newsletter');
    expect(news).toContain('<p>All about Newsletter</p>');
    expect(news).toContain('Status: <strong>Subscribed</strong>');
    expect(news).toContain('<button type="submit" name="action" value="leave-group"');
    expect(news).toContain('>Unsubscribe from Newsletter</button>');
    const offersItem = groupItem(html, 'Offers');
    expect(offersItem).toContain('Status: <strong>Unsubscribed</strong>');
    expect(offersItem).toContain('>Subscribe again to Offers</button>');
    expect(offersItem).toContain(`<input type="hidden" name="group_id" value="${offers.id}">`);
    expect(html).toContain(`<input type="hidden" name="token" value="${token}">`);
    expect(html).toContain('<form method="post" action="preferences"');
    expect(html).toContain('>Unsubscribe from everything</button>');
  });

  it('shows the address partly hidden, never in full', async () => {
    const { token } = await setting();
    const html = expectHtmlPage(await openPage('public/preferences', token), 200);
    expect(html).toContain('<strong>r***r@example.com</strong>');
    expect(html).not.toContain(reader);
  });

  it('escapes group names and descriptions', async () => {
    const { accountId, token } = await setting();
    await newGroup(accountId, '<b>News & "Deals"</b>', 1, '<script>alert(1)</script>');
    const html = expectHtmlPage(await openPage('public/preferences', token), 200);
    expect(html).toContain('<h3>&lt;b&gt;News &amp; &quot;Deals&quot;&lt;/b&gt;</h3>');
    expect(html).toContain('<p>&lt;script&gt;alert(1)&lt;/script&gt;</p>');
    expect(html).not.toContain('<b>News');
  });

  it("never shows another account's groups", async () => {
    const { token } = await setting();
    const other = await newAccount();
    await newGroup(other.account_id, 'Someone else\'s topic');
    const html = expectHtmlPage(await openPage('public/preferences', token), 200);
    expect(html).not.toContain('Someone else');
  });

  it('says so, and offers no second global unsubscribe, when the address left everything', async () => {
    const { accountId, token } = await setting();
    await addGlobalUnsubscribe(accountId, 'READER@example.com');
    const html = expectHtmlPage(await openPage('public/preferences', token), 200);
    expect(html).toContain('You are unsubscribed from all email from this sender.');
    expect(html).not.toContain('value="unsubscribe-all"');
  });

  it('answers a 400 page, revealing nothing, for a missing, garbled or tampered token', async () => {
    const { token } = await setting();
    for (const refused of [undefined, 'garbage', retargeted(token, 'victim@example.com')]) {
      const html = expectHtmlPage(await openPage('public/preferences', refused), 400);
      expect(html).toContain('<title>This link is not valid</title>');
      expect(html).not.toContain('Newsletter');
      expect(html).not.toContain('victim');
    }
  });
});

describe('changing preferences', () => {
  it('leaving a group puts the address in that group only, confirms, and counts one unsubscribe', async () => {
    const { accountId, news, offers, ref, token } = await setting();
    // Act
    const page = await submitPreferences({ token, action: 'leave-group', group_id: news.id });
    // Assess
    const html = expectHtmlPage(page, 200);
    expect(html).toContain('<title>You are unsubscribed</title>');
    expect(html).toContain('<strong>r***r@example.com</strong> will no longer receive <strong>Newsletter</strong> email.');
    expect(html).toContain(`<a href="preferences?token=${token}">Back to your email preferences</a>`);
    expect(await groupAddresses(accountId, news.id)).toEqual([reader]);
    expect(await groupAddresses(accountId, offers.id)).toEqual([]);
    expect(await isGloballyUnsubscribed(accountId, reader)).toBe(false);
    expect((await listUnsubscribeGroups(accountId)).find((group) => group.id === news.id)?.unsubscribe_clients_count).toBe(1);
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 1 });
  });

  it('counts a recipient once per send, however many groups they leave and however often', async () => {
    const { accountId, news, offers, ref, token } = await setting();
    await submitPreferences({ token, action: 'leave-group', group_id: news.id });
    await submitPreferences({ token, action: 'leave-group', group_id: news.id });
    await submitPreferences({ token, action: 'leave-group', group_id: offers.id });
    expect(await groupAddresses(accountId, news.id)).toEqual([reader]);
    expect(await groupAddresses(accountId, offers.id)).toEqual([reader]);
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 1 });
  });

  it('can leave a group other than the send\'s own', async () => {
    const { accountId, offers, token } = await setting();
    expectHtmlPage(await submitPreferences({ token, action: 'leave-group', group_id: offers.id }), 200);
    expect(await isInUnsubscribeGroup(accountId, offers.id, reader)).toBe(true);
  });

  it('rejoining a group takes the address out of it and keeps the group count right', async () => {
    const { accountId, news, ref, token } = await setting();
    await submitPreferences({ token, action: 'leave-group', group_id: news.id });
    // Act
    const html = expectHtmlPage(await submitPreferences({ token, action: 'rejoin-group', group_id: news.id }), 200);
    // Assess
    expect(html).toContain('<title>You are subscribed again</title>');
    expect(html).toContain('will receive <strong>Newsletter</strong> email again.');
    expect(html).not.toContain('still unsubscribed from all email');
    expect(await groupAddresses(accountId, news.id)).toEqual([]);
    expect((await listUnsubscribeGroups(accountId)).find((group) => group.id === news.id)?.unsubscribe_clients_count).toBe(0);
    // An unsubscribe that happened stays counted.
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 1 });
    const page = expectHtmlPage(await openPage('public/preferences', token), 200);
    expect(groupItem(page, 'Newsletter')).toContain('Status: <strong>Subscribed</strong>');
  });

  it('warns on rejoining a group while the global unsubscribe stands', async () => {
    const { accountId, news, token } = await setting();
    await addGlobalUnsubscribe(accountId, reader);
    await addToUnsubscribeGroup(accountId, news.id, reader);
    const html = expectHtmlPage(await submitPreferences({ token, action: 'rejoin-group', group_id: news.id }), 200);
    expect(html).toContain('You are still unsubscribed from all email from this sender');
  });

  it('unsubscribing from everything puts the address on the global list and confirms', async () => {
    const { accountId, news, ref, token } = await setting();
    const html = expectHtmlPage(await submitPreferences({ token, action: 'unsubscribe-all' }), 200);
    expect(html).toContain('<title>You are unsubscribed from everything</title>');
    expect(html).toContain('will no longer receive any email from this sender.');
    expect(await groupAddresses(accountId, null)).toEqual([reader]);
    expect(await groupAddresses(accountId, news.id)).toEqual([]);
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 1 });
    // Again: still one entry, still one unsubscribe.
    expectHtmlPage(await submitPreferences({ token, action: 'unsubscribe-all' }), 200);
    expect(await groupAddresses(accountId, null)).toEqual([reader]);
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 1 });
  });

  it('refuses hidden, foreign, unknown and malformed group choices and unknown actions, changing nothing', async () => {
    const { accountId, internal, token } = await setting();
    const other = await newAccount();
    const foreign = await newGroup(other.account_id, 'Foreign');
    const refusals: Record<string, string | number>[] = [
      { token, action: 'leave-group', group_id: internal.id },
      { token, action: 'leave-group', group_id: foreign.id + 1000 },
      { token, action: 'leave-group', group_id: 'abc' },
      { token, action: 'leave-group' },
      { token, action: 'delete-everything', group_id: internal.id },
      { token },
    ];
    for (const fields of refusals) {
      const html = expectHtmlPage(await submitPreferences(fields), 400);
      expect(html).toContain('<title>This choice is not available</title>');
      expect(html).toContain('Nothing was changed.');
    }
    expect(await groupAddresses(accountId, internal.id)).toEqual([]);
    expect(await groupAddresses(accountId, null)).toEqual([]);
    expect(await groupAddresses(other.account_id, foreign.id)).toEqual([]);
  });

  it('refuses a missing or tampered token with the invalid-link page, changing nothing', async () => {
    const { accountId, news, token } = await setting();
    const refused: Record<string, string>[] = [{ action: 'unsubscribe-all' }, { token: retargeted(token, 'victim@example.com'), action: 'unsubscribe-all' }];
    for (const fields of refused) {
      const html = expectHtmlPage(await submitPreferences(fields), 400);
      expect(html).toContain('<title>This link is not valid</title>');
    }
    expect(await groupAddresses(accountId, null)).toEqual([]);
    expect(await groupAddresses(accountId, news.id)).toEqual([]);
  });

  it('works for a link from an automation step too', async () => {
    const { accountId, news } = await setting();
    const stepToken = recipientToken({ kind: 'automation-step', accountId, automationUtr: 'no-such-automation', stepUtr: 'step-1' }, reader, news.id);
    expectHtmlPage(await openPage('public/preferences', stepToken), 200);
    expectHtmlPage(await submitPreferences({ token: stepToken, action: 'leave-group', group_id: news.id }), 200);
    expect(await groupAddresses(accountId, news.id)).toEqual([reader]);
  });
});
