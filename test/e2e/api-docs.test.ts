// The API docs in a real browser (headless Chromium) against the whole local stack: /api/docs renders
// the viewer from files the API serves itself, on the document at /api/openapi.json, with operations
// and their fields shown, nothing fetched from anywhere else and nothing refused by its CSP.
import { type Browser } from 'playwright-core';
import { startTestStack, type TestStack } from '../support/local-stack';
import { launchChromium } from '../support/chromium';

let stack: TestStack;
let browser: Browser;

beforeAll(async () => {
  stack = await startTestStack();
  browser = await launchChromium();
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
}, 60_000);

test('/api/docs renders every family\'s operations with their fields, from this API alone', async () => {
  const context = await browser.newContext();
  const page = await context.newPage();
  const origin = new URL(stack.apiUrl).origin;
  const elsewhere: string[] = [];
  const refused: string[] = [];
  page.on('request', (request) => {
    if (!request.url().startsWith(origin) && !request.url().startsWith('data:')) elsewhere.push(request.url());
  });
  // Any error: a CSP refusal, a file the page asks for that the API does not serve.
  page.on('console', (message) => {
    if (message.type() === 'error') refused.push(message.text());
  });
  try {
    const response = await page.goto(`${stack.apiUrl}docs`);
    expect(response?.status()).toBe(200);
    expect(response?.headers()['content-security-policy']).toMatch(/^default-src 'self';/);

    // An operation of the table, rendered by the viewer from the served document.
    const operation = page.locator('.opblock', { hasText: '/api/contacts-type/add' });
    await operation.first().waitFor({ timeout: 20_000 });
    expect(await page.locator('.opblock-tag').allTextContents()).toEqual(expect.arrayContaining([expect.stringContaining('contact-types'), expect.stringContaining('automations')]));

    // Opened, it shows the body field the operation's validation rules declare, required, in all three encodings.
    await operation.first().locator('.opblock-summary').click();
    const body = operation.first().locator('.opblock-body');
    await body.waitFor({ timeout: 10_000 });
    const text = await body.innerText();
    expect(text).toContain('Request body');
    expect(text).toMatch(/name\s*\*\s*string/);
    expect(text).toContain('application/x-www-form-urlencoded');

    expect(elsewhere).toEqual([]);
    expect(refused).toEqual([]);
  } finally {
    await context.close();
  }
}, 60_000);
