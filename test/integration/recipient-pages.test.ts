// The open pixel and the RFC 8058 one-click unsubscribe, through the public-pages handler: exact
// image bytes and headers whatever the token, opens counted (unique once, total at most hourly), and a
// one-click POST that leaves the send's group (or everything) once, however often it is repeated.
import { listSuppressionList } from '../../shared/suppressions/repository';
import { isGloballyUnsubscribed, isInUnsubscribeGroup } from '../../shared/suppressions/unsubscribes';
import type { SendRef } from '../../shared/ledger/send-ref';
import { newAccount } from '../support/accounts';
import { expectHtmlPage, newGroup, oneClick, openPage, recipientToken, retargeted, sendStatistics, storedSingleSend } from '../support/recipient-pages';

// Lets one test make the statistics write fail, to prove the image never depends on it.
const mockRecording = { fail: false };
jest.mock('../../shared/statistics/event-counts', () => {
  const actual = jest.requireActual('../../shared/statistics/event-counts');
  return {
    ...actual,
    recordSendEvent: (...args: unknown[]) => (mockRecording.fail ? Promise.reject(new Error('statistics table unavailable')) : actual.recordSendEvent(...args)),
  };
});

// GIF89a, 1x1, two colours, colour 0 transparent, one pixel of colour 0.
const expectedGif = Buffer.from('R0lGODlhAQABAIAAAAAAAP///yH5BAEAAAAALAAAAAABAAEAAAICRAEAOw==', 'base64');

async function expectPixel(token: string | undefined): Promise<void> {
  const result = await openPage('public/open', token);
  expect(result.statusCode).toBe(200);
  expect(result.headers).toEqual({
    'content-type': 'image/gif',
    'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
    pragma: 'no-cache',
    expires: '0',
    'x-content-type-options': 'nosniff',
    'referrer-policy': 'no-referrer',
  });
  expect(result.isBase64Encoded).toBe(true);
  expect(Buffer.from(String(result.body), 'base64').equals(expectedGif)).toBe(true);
}

describe('open pixel', () => {
  afterEach(() => {
    mockRecording.fail = false;
  });

  it('is a 43-byte transparent 1x1 GIF89a', async () => {
    const { account_id } = await newAccount();
    const ref = await storedSingleSend(account_id);
    const result = await openPage('public/open', recipientToken(ref, 'reader@example.com', null));
    const gif = Buffer.from(String(result.body), 'base64');
    expect(gif.length).toBe(43);
    expect(gif.subarray(0, 6).toString('ascii')).toBe('GIF89a');
    expect([gif.readUInt16LE(6), gif.readUInt16LE(8)]).toEqual([1, 1]);
    // Graphic control extension with the transparent-colour flag, for colour index 0.
    expect([gif[19], gif[20], (gif[22] as number) & 1, gif[25]]).toEqual([0x21, 0xf9, 1, 0]);
    expect(gif[gif.length - 1]).toBe(0x3b);
  });

  it('counts the first open of a recipient as unique and in the total, a repeat within the hour in neither', async () => {
    const { account_id } = await newAccount();
    const ref = await storedSingleSend(account_id);
    const token = recipientToken(ref, 'reader@example.com', 1);
    // Act
    await expectPixel(token);
    await expectPixel(token);
    // Assess
    expect(await sendStatistics(ref)).toEqual({ triggered: 0, delivered: 0, unique_opens: 1, total_opens: 1, bounces: 0, unsubscribes: 0 });
  });

  it('counts each recipient once among the unique opens', async () => {
    const { account_id } = await newAccount();
    const ref = await storedSingleSend(account_id);
    await expectPixel(recipientToken(ref, 'first@example.com', 1));
    await expectPixel(recipientToken(ref, 'second@example.com', 1));
    await expectPixel(recipientToken(ref, 'first@example.com', 1));
    expect(await sendStatistics(ref)).toMatchObject({ unique_opens: 2, total_opens: 2 });
  });

  it('answers the same image for a missing, garbled or tampered token and counts nothing', async () => {
    const { account_id } = await newAccount();
    const ref = await storedSingleSend(account_id);
    const token = recipientToken(ref, 'reader@example.com', 1);
    await expectPixel(undefined);
    await expectPixel('');
    await expectPixel('garbage');
    await expectPixel(retargeted(token, 'someone@example.com'));
    await expectPixel(`${token}x`);
    expect(await sendStatistics(ref)).toMatchObject({ unique_opens: 0, total_opens: 0 });
  });

  it('answers the image for a send that no longer exists', async () => {
    const { account_id } = await newAccount();
    const gone: SendRef = { kind: 'single-send', accountId: account_id, utr: '6b1e7a52-0c4d-4f3b-8e2a-9d5c1f7a3b60' };
    await expectPixel(recipientToken(gone, 'reader@example.com', null));
  });

  it('still answers the image when the open cannot be recorded', async () => {
    const { account_id } = await newAccount();
    const ref = await storedSingleSend(account_id);
    mockRecording.fail = true;
    await expectPixel(recipientToken(ref, 'reader@example.com', 1));
    mockRecording.fail = false;
    expect(await sendStatistics(ref)).toMatchObject({ unique_opens: 0, total_opens: 0 });
  });
});

describe('one-click unsubscribe (RFC 8058)', () => {
  it("leaves the send's unsubscribe group, not everything, and counts the unsubscribe", async () => {
    const { account_id } = await newAccount();
    const group = await newGroup(account_id, 'Newsletter');
    const ref = await storedSingleSend(account_id, group.id);
    // Act
    const result = await oneClick(recipientToken(ref, 'Reader@Example.com', group.id));
    // Assess
    expect(result.statusCode).toBe(200);
    expect(result.headers).toMatchObject({ 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'no-store' });
    expect(result.body).toBe('You are unsubscribed.\n');
    expect(await isInUnsubscribeGroup(account_id, group.id, 'reader@example.com')).toBe(true);
    expect(await isGloballyUnsubscribed(account_id, 'reader@example.com')).toBe(false);
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 1 });
  });

  it('is idempotent: a repeated POST answers the same and adds and counts nothing more', async () => {
    const { account_id } = await newAccount();
    const group = await newGroup(account_id, 'Newsletter');
    const ref = await storedSingleSend(account_id, group.id);
    const token = recipientToken(ref, 'reader@example.com', group.id);
    await oneClick(token);
    const again = await oneClick(token);
    expect(again.statusCode).toBe(200);
    expect(again.body).toBe('You are unsubscribed.\n');
    expect((await listSuppressionList({ accountId: account_id, groupId: group.id })).map((entry) => entry.email_address)).toEqual(['reader@example.com']);
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 1 });
  });

  it('unsubscribes from everything when the link names no group', async () => {
    const { account_id } = await newAccount();
    const ref = await storedSingleSend(account_id);
    const result = await oneClick(recipientToken(ref, 'reader@example.com', null));
    expect(result.statusCode).toBe(200);
    expect((await listSuppressionList({ accountId: account_id, groupId: null })).map((entry) => entry.email_address)).toEqual(['reader@example.com']);
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 1 });
  });

  it('works without the RFC 8058 body too (the token alone says who and what)', async () => {
    const { account_id } = await newAccount();
    const ref = await storedSingleSend(account_id);
    expect((await oneClick(recipientToken(ref, 'reader@example.com', null), '')).statusCode).toBe(200);
    expect(await isGloballyUnsubscribed(account_id, 'reader@example.com')).toBe(true);
  });

  it('refuses a missing or tampered token with 400 and changes nothing', async () => {
    const { account_id } = await newAccount();
    const group = await newGroup(account_id, 'Newsletter');
    const ref = await storedSingleSend(account_id, group.id);
    const token = recipientToken(ref, 'reader@example.com', group.id);
    for (const refused of [undefined, 'garbage', retargeted(token, 'victim@example.com')]) {
      const result = await oneClick(refused);
      expect(result.statusCode).toBe(400);
      expect(result.body).toBe('This unsubscribe link is not valid.\n');
    }
    expect(await isInUnsubscribeGroup(account_id, group.id, 'victim@example.com')).toBe(false);
    expect(await listSuppressionList({ accountId: account_id, groupId: group.id })).toEqual([]);
    expect(await sendStatistics(ref)).toMatchObject({ unsubscribes: 0 });
  });

  it('shows the preferences page when the one-click URL is opened with GET, changing nothing', async () => {
    const { account_id } = await newAccount();
    const group = await newGroup(account_id, 'Newsletter');
    const ref = await storedSingleSend(account_id, group.id);
    const html = expectHtmlPage(await openPage('public/unsubscribe', recipientToken(ref, 'reader@example.com', group.id)), 200);
    expect(html).toContain('<title>Email preferences</title>');
    expect(html).toContain('Unsubscribe from Newsletter');
    expect(await isInUnsubscribeGroup(account_id, group.id, 'reader@example.com')).toBe(false);
  });

  it('keeps one account\'s link from touching another account', async () => {
    const owner = await newAccount();
    const other = await newAccount();
    const ownerGroup = await newGroup(owner.account_id, 'Newsletter');
    const otherGroup = await newGroup(other.account_id, 'Newsletter');
    const ref = await storedSingleSend(owner.account_id, ownerGroup.id);
    await oneClick(recipientToken(ref, 'reader@example.com', ownerGroup.id));
    expect(await isInUnsubscribeGroup(owner.account_id, ownerGroup.id, 'reader@example.com')).toBe(true);
    expect(await isInUnsubscribeGroup(other.account_id, otherGroup.id, 'reader@example.com')).toBe(false);
  });
});
