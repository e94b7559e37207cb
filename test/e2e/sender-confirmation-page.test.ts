// The sender confirmation page in a real browser (Debian's headless Chromium) against the whole
// local stack: the link in the verification mail opens a page whose button, not the link, confirms
// the address, and the API shows the sender verified only after the click.
import { type Browser, type BrowserContext, type Page } from 'playwright-core';
import { launchChromium } from '../support/chromium';
import { startTestStack, type TestStack } from '../support/local-stack';
import { senderInput, uniqueAddress, type StoredMail } from '../support/senders';


let stack: TestStack;
let browser: Browser;
let context: BrowserContext;
let page: Page;

async function api<T>(path: string, init: { method?: string; form?: Record<string, string | number> } = {}): Promise<T> {
  const response = await fetch(`${stack.apiUrl}${path}`, {
    method: init.method ?? 'GET',
    headers: stack.demoHeaders,
    ...(init.form ? { body: new URLSearchParams(Object.entries(init.form).map(([name, value]): [string, string] => [name, String(value)])) } : {}),
  });
  const body = (await response.json()) as { status: string; message: T };
  if (response.status !== 200) throw new Error(`${path} answered ${response.status}: ${JSON.stringify(body)}`);
  return body.message;
}

async function senderByAddress(address: string): Promise<{ id: number; is_verified: number }> {
  const { senders } = await api<{ senders: { id: number; from_email: string; is_verified: number }[] }>('senders');
  const sender = senders.find((candidate) => candidate.from_email === address);
  if (!sender) throw new Error(`Sender ${address} was not saved`);
  return sender;
}

async function confirmationLinkTo(address: string): Promise<string> {
  const { emails } = (await (await fetch(stack.mailStoreUrl)).json()) as { emails: StoredMail[] };
  const mail = emails.find((candidate) => candidate.destination.to.includes(address));
  const href = /href="([^"]+)"/.exec(mail?.body.html ?? '')?.[1];
  if (!href) throw new Error(`No verification mail to ${address}`);
  return href.replace(/&amp;/g, '&');
}

beforeAll(async () => {
  stack = await startTestStack();
  browser = await launchChromium();
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

test('opening the link in the mail verifies nothing; the button on the page does', async () => {
  const address = uniqueAddress();
  await api('sender/save', { method: 'POST', form: senderInput({ from_email: address }) });
  const link = await confirmationLinkTo(address);
  // Act: the link is followed (as a mail scanner would, too)
  const opened = await page.goto(link);
  // Assess
  expect(opened?.status()).toBe(200);
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Confirm your sender address');
  expect((await senderByAddress(address)).is_verified).toBe(0);
  // Act: the owner presses the button
  await page.getByRole('button', { name: 'Confirm sender address' }).click();
  // Assess
  expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Sender address confirmed');
  expect(await page.locator('main').textContent()).toContain(`The address ${address} is confirmed`);
  expect((await senderByAddress(address)).is_verified).toBe(1);
  // The link opened again says so, with nothing left to press.
  await page.goto(link);
  expect(await page.locator('main').textContent()).toContain('is already confirmed');
  expect(await page.getByRole('button').count()).toBe(0);
}, 60_000);
