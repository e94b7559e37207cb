// The recipient pages in a real browser (Debian's headless Chromium) against the whole local stack:
// the preferences page's forms work without JavaScript, and what a click changes shows in the API.
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { getSingleSend } from '../../shared/single-sends/repository';
import { openPixelUrl, preferencesUrl, recipientToken } from '../../shared/public-links/recipient-links';
import type { SendRef } from '../../shared/ledger/send-ref';
import { launchChromium } from '../support/chromium';
import { startTestStack, type TestStack } from '../support/local-stack';
import { storedSingleSend } from '../support/recipient-pages';
import { contactFields, type SinkMail } from '../support/sending';
import { newSendingAccount, sendFields, type SendingAccount } from '../support/single-sends';
import { addContact } from '../../shared/audience/contact-service';

const screenshotPath = '/tmp/preferences.png';

let stack: TestStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;

async function api<T>(path: string, init: { method?: string; form?: Record<string, string | number>; headers?: Record<string, string> } = {}): Promise<T> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: init.headers ?? stack.demoHeaders,
    ...(init.form ? { body: new URLSearchParams(Object.entries(init.form).map(([name, value]): [string, string] => [name, String(value)])) } : {}),
  });
  const body = (await response.json()) as { status: string; message: T };
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.message;
}

async function groupId(name: string): Promise<number> {
  const { unsubscribesGroups } = await api<{ unsubscribesGroups: { id: number; group_name: string }[] }>('unsubscribes-groups');
  const group = unsubscribesGroups.find((candidate) => candidate.group_name === name);
  if (!group) throw new Error(`Group ${name} was not saved`);
  return group.id;
}

const groupRecipients = async (id: number) =>
  (await api<{ recipients: { email_address: string }[] }>(`unsubscribes-groups/recipients-list?groupId=${id}`)).recipients.map((entry) => entry.email_address);

const globalUnsubscribes = async () =>
  (await api<{ unSubscribers: { email_address: string }[] }>('global-unsubscribes')).unSubscribers.map((entry) => entry.email_address);

let newsletter: number;
let ref: SendRef & { kind: 'single-send' };

beforeAll(async () => {
  stack = await startTestStack();
  browser = await launchChromium();
  for (const [name, display] of [['Newsletter', '1'], ['Product updates', '1'], ['Billing notices', '0']] as const) {
    await api('unsubscribes-groups/save', { method: 'POST', form: { group_name: name, description: `Our ${name.toLowerCase()}.`, is_display: display } });
  }
  newsletter = await groupId('Newsletter');
  ref = await storedSingleSend(stack.demoAccount.account_id, newsletter);
}, 120_000);

beforeEach(async () => {
  // Forms only, no scripts: what a mail client's built-in browser may be limited to.
  context = await browser.newContext({ javaScriptEnabled: false, viewport: { width: 390, height: 844 } });
  page = await context.newPage();
});

afterEach(async () => {
  await context?.close();
});

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

test('leaving a group from the preferences page suppresses the address in that group', async () => {
  const email = 'group.leaver@example.com';
  await page.goto(preferencesUrl(recipientToken(ref, email, newsletter)));
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Email preferences');
  expect(await page.getByRole('heading', { level: 3 }).allTextContents()).toEqual(['Newsletter', 'Product updates']);
  expect(await page.locator('main').textContent()).toContain('g***r@example.com');
  await page.screenshot({ path: screenshotPath, fullPage: true });
  // Act
  await page.getByRole('button', { name: 'Unsubscribe from Newsletter' }).click();
  // Assess
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You are unsubscribed');
  expect(await page.getByRole('status').textContent()).toBe('g***r@example.com will no longer receive Newsletter email.');
  expect(await groupRecipients(newsletter)).toContain(email);
  expect(await globalUnsubscribes()).not.toContain(email);
  expect((await getSingleSend(ref.accountId, ref.utr)).unsubscribes).toBe(1);
  // Back on the page, the group shows the new state and offers the way back.
  await page.getByRole('link', { name: 'Back to your email preferences' }).click();
  expect(await page.locator('li', { hasText: 'Newsletter' }).locator('.state').textContent()).toBe('Status: Unsubscribed');
  await page.getByRole('button', { name: 'Subscribe again to Newsletter' }).click();
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You are subscribed again');
  expect(await groupRecipients(newsletter)).not.toContain(email);
});

test('unsubscribing from everything puts the address on the global unsubscribe list', async () => {
  const email = 'everything.leaver@example.com';
  await page.goto(preferencesUrl(recipientToken(ref, email, newsletter)));
  // Act
  await page.getByRole('button', { name: 'Unsubscribe from everything' }).click();
  // Assess
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You are unsubscribed from everything');
  expect(await globalUnsubscribes()).toContain(email);
  await page.getByRole('link', { name: 'Back to your email preferences' }).click();
  expect(await page.getByRole('status').textContent()).toContain('You are unsubscribed from all email from this sender.');
  expect(await page.getByRole('button', { name: 'Unsubscribe from everything' }).count()).toBe(0);
});

test('a tampered link shows the invalid-link page', async () => {
  const token = recipientToken(ref, 'reader@example.com', newsletter);
  const response = await page.goto(preferencesUrl(`${token.slice(0, -2)}AA`));
  expect(response?.status()).toBe(400);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('This link is not valid');
});

test('the page fits a phone screen without sideways scrolling, and the pixel decodes as a 1x1 image', async () => {
  // A phone's browser, as a reader has: headless Chromium's own User-Agent names it a machine
  // (statistics/engagement-rules.ts), whose opens are counted apart from people's.
  const phoneBrowser = 'Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Mobile Safari/537.36';
  const scripted = await browser.newContext({ viewport: { width: 360, height: 740 }, userAgent: phoneBrowser });
  try {
    const phone = await scripted.newPage();
    await phone.goto(preferencesUrl(recipientToken(ref, 'a.rather.long.address.for.a.small.screen@example.com', newsletter)));
    // Expressions as text: they run in the page, and this project compiles without the DOM library.
    expect(await phone.evaluate('document.documentElement.scrollWidth <= window.innerWidth')).toBe(true);
    const pixel = await phone.goto(openPixelUrl(recipientToken(ref, 'pixel.reader@example.com', newsletter)));
    expect(pixel?.headers()['content-type']).toBe('image/gif');
    expect(await phone.evaluate("(() => { const image = document.querySelector('img'); return image && [image.naturalWidth, image.naturalHeight]; })()")).toEqual([1, 1]);
    expect((await getSingleSend(ref.accountId, ref.utr)).unique_opens).toBe(1);
  } finally {
    await scripted.close();
  }
});

describe('from a real mail to the next send', () => {
  let account: SendingAccount;
  let headers: Record<string, string>;
  const tag = Date.now().toString(36);
  const [clicker, oneClicker, stayer] = ['clicker', 'one-clicker', 'stayer'].map((name) => `${name}.${tag}@example.com`) as [string, string, string];

  async function mailsTo(address: string): Promise<SinkMail[]> {
    const { emails } = (await (await fetch(stack.mailStoreUrl)).json()) as { emails: SinkMail[] };
    return emails.filter((mail) => mail.destination.to.includes(address));
  }

  async function sendAndSettle(name: string): Promise<{ utr: string; triggered: number }> {
    const { utr } = await api<{ utr: string }>('single/send/create', { method: 'POST', headers, form: sendFields(account, { single_send_name: name }) });
    let status = 0;
    let triggered = 0;
    const deadline = Date.now() + 20_000;
    while (status !== 3) {
      if (Date.now() > deadline) throw new Error(`Send ${name} did not complete within 20 s (status ${status})`);
      await new Promise((done) => setTimeout(done, 100));
      const { singleSend } = await api<{ singleSend: { status: number; triggered: number }[] }>(`single-send/details?utr=${utr}`, { headers });
      ({ status, triggered } = singleSend[0] as { status: number; triggered: number });
    }
    return { utr, triggered };
  }

  beforeAll(async () => {
    account = await newSendingAccount();
    headers = { PublicKey: account.keys.public_key, SecretKey: account.keys.secret_key };
    for (const email of [clicker, oneClicker, stayer]) await addContact(account.keys.account_id, contactFields(account.contactTypeId, email), {});
  }, 60_000);

  test('an address unsubscribed by a click in the mail, or by its List-Unsubscribe header, is left out of the next send', async () => {
    const first = await sendAndSettle('First issue');
    expect(first.triggered).toBe(3);
    const [clickerMail] = await mailsTo(clicker);
    const [oneClickerMail] = await mailsTo(oneClicker);
    // The preferences link in the mail's footer, clicked in the browser.
    const link = /href="([^"]*\/public\/preferences\?token=[^"]+)"/.exec(String(clickerMail?.body.html))?.[1];
    expect(link).toBeDefined();
    await page.goto(String(link).replace(/&amp;/g, '&'));
    await page.getByRole('button', { name: 'Unsubscribe from Newsletter' }).click();
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('You are unsubscribed');
    // The other reader's mail provider uses the RFC 8058 header.
    const header = oneClickerMail?.headers?.find((entry) => entry.name === 'List-Unsubscribe')?.value ?? '';
    const oneClickUrl = /^<(.+)>$/.exec(header)?.[1];
    expect(oneClickUrl).toContain('/public/unsubscribe?token=');
    const answer = await fetch(String(oneClickUrl), {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: 'List-Unsubscribe=One-Click',
    });
    expect(answer.status).toBe(200);
    expect((await getSingleSend(account.keys.account_id, first.utr)).unsubscribes).toBe(2);
    // Act
    const second = await sendAndSettle('Second issue');
    // Assess
    expect(second.triggered).toBe(1);
    expect((await mailsTo(clicker)).length).toBe(1);
    expect((await mailsTo(oneClicker)).length).toBe(1);
    expect((await mailsTo(stayer)).length).toBe(2);
  }, 60_000);
});
