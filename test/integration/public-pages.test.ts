// The public sender confirmation page: following the link in the verification mail shows a button,
// and only the button's POST verifies the sender (a mail scanner that follows links confirms nothing);
// expired, tampered, foreign and outdated links are refused with a page that tells nothing.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as senders } from '../../functions/senders/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { signSenderConfirmation } from '../../shared/senders/confirmation';
import { signToken } from '../../shared/signed-token';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { tamperedClaims } from '../support/token-tampering';
import { apiEvent, authHeaders, multipart, parsed, urlencoded, type Keys } from '../support/events';
import { confirmationLink, latestConfirmationToken, mailsTo, senderInput, startMailSink, stopMailSink, uniqueAddress } from '../support/senders';

async function call(keys: Keys, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) {
  return parsed(await senders(apiEvent({ method, path, ...options, headers: authHeaders(keys) })));
}

async function isVerified(keys: Keys, id = 1): Promise<unknown> {
  const { body } = await call(keys, 'GET', 'sender/details', { query: { sender_id: id } });
  return (body.message as { sender: { is_verified: unknown } }).sender.is_verified;
}

/** Open a link as a browser would: no credentials, just the URL. */
async function open(url: URL): Promise<APIGatewayProxyStructuredResultV2> {
  return publicPages(apiEvent({ method: 'GET', path: url.pathname.replace(/^\/api\//, ''), query: Object.fromEntries(url.searchParams) }));
}

/** Press the page's button: the form posts the token back to the same path. */
async function confirmPage(token?: string): Promise<APIGatewayProxyStructuredResultV2> {
  return publicPages(apiEvent({ method: 'POST', path: 'public/senders/confirm', body: urlencoded(token === undefined ? {} : { token }) }));
}

/** The hidden token of the page's confirmation form, with HTML entities undone. */
function formToken(page: APIGatewayProxyStructuredResultV2): string {
  const html = String(page.body);
  expect(html).toMatch(/<form method="post" action="confirm">/);
  const token = /<input type="hidden" name="token" value="([^"]*)">/.exec(html)?.[1];
  if (token === undefined) throw new Error('the page has no token field');
  return token.replace(/&amp;/g, '&');
}

/** A new account with one saved sender, and that sender's from address. */
async function accountWithSender(): Promise<{ keys: Keys & { account_id: number }; fromEmail: string }> {
  const keys = await newAccount();
  const fromEmail = uniqueAddress();
  await call(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
  return { keys, fromEmail };
}

function expectPage(page: APIGatewayProxyStructuredResultV2, status: number, text: string): void {
  expect(page.statusCode).toBe(status);
  expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
  expect(page.headers?.['cache-control']).toBe('no-store');
  expect(page.headers?.['referrer-policy']).toBe('no-referrer');
  const html = String(page.body);
  expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
  expect(html.trimEnd().endsWith('</html>')).toBe(true);
  expect(html).toContain('<meta charset="utf-8">');
  expect(html).toMatch(/<title>[^<]+<\/title>/);
  expect(html).toContain(text);
}

describe('public sender confirmation page', () => {
  let sink: SesSink;

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
  }, 120_000);

  afterEach(() => resetClock());

  afterAll(async () => {
    await stopMailSink(sink);
  });

  it('shows a confirmation button when the link from the mail is followed, and verifies nothing yet', async () => {
    const { keys, fromEmail } = await accountWithSender();
    const [mail] = await mailsTo(sink, fromEmail);
    const link = confirmationLink(mail!);
    // Act: a mail scanner following the link, twice
    const page = await open(link);
    await open(link);
    // Assess
    expectPage(page, 200, `Confirm that you want ${fromEmail} to be used as a sender address.`);
    expect(String(page.body)).toContain('<button class="primary" type="submit">Confirm sender address</button>');
    expect(formToken(page)).toBe(link.searchParams.get('token'));
    expect(await isVerified(keys)).toBe(0);
  });

  it('verifies the sender when the button is pressed, without credentials', async () => {
    const { keys, fromEmail } = await accountWithSender();
    const [mail] = await mailsTo(sink, fromEmail);
    const shown = await open(confirmationLink(mail!));
    // Act
    const page = await confirmPage(formToken(shown));
    // Assess
    expectPage(page, 200, `The address ${fromEmail} is confirmed`);
    expect(await isVerified(keys)).toBe(1);
  });

  it('says so when the link of an already confirmed sender is followed again', async () => {
    const { keys, fromEmail } = await accountWithSender();
    const link = confirmationLink((await mailsTo(sink, fromEmail))[0]!);
    await confirmPage(link.searchParams.get('token') as string);
    const page = await open(link);
    expectPage(page, 200, `The address ${fromEmail} is already confirmed.`);
    expect(String(page.body)).not.toContain('<form');
    expect(await isVerified(keys)).toBe(1);
  });

  it('refuses an invalid, outdated or orphaned link already on the page the link opens', async () => {
    const { keys, fromEmail } = await accountWithSender();
    const link = confirmationLink((await mailsTo(sink, fromEmail))[0]!);
    const tampered = new URL(link);
    tampered.searchParams.set('token', `${link.searchParams.get('token')}x`);
    expectPage(await open(tampered), 400, 'invalid or has expired');
    await call(keys, 'POST', 'sender/update', { body: multipart(senderInput({ from_email: uniqueAddress(), sender_id: 1 })) });
    expectPage(await open(link), 400, 'invalid or has expired');
    await call(keys, 'DELETE', 'sender/delete', { query: { sender_id: 1 } });
    expectPage(await open(link), 404, 'This sender no longer exists');
  });

  it('answers the success page again on a second click', async () => {
    const { keys, fromEmail } = await accountWithSender();
    const token = await latestConfirmationToken(sink, fromEmail);
    await confirmPage(token);
    const { body: before } = await call(keys, 'GET', 'sender/details', { query: { sender_id: 1 } });
    const again = await confirmPage(token);
    const { body: after } = await call(keys, 'GET', 'sender/details', { query: { sender_id: 1 } });
    expectPage(again, 200, 'is confirmed');
    // Nothing changed the second time, not even updated_at.
    expect(after).toEqual(before);
  });

  it('refuses an expired link and leaves the sender unverified', async () => {
    const start = new Date('2030-03-01T08:00:00Z');
    setClock(() => start);
    const { keys, fromEmail } = await accountWithSender();
    const token = await latestConfirmationToken(sink, fromEmail);
    setClock(() => new Date(start.getTime() + 48 * 3600 * 1000));
    const page = await confirmPage(token);
    expectPage(page, 400, 'invalid or has expired');
    expect(String(page.body)).not.toContain(fromEmail);
    expect(await isVerified(keys)).toBe(0);
  });

  it('accepts the link until just before it expires', async () => {
    const start = new Date('2030-03-01T08:00:00Z');
    setClock(() => start);
    const { keys, fromEmail } = await accountWithSender();
    const token = await latestConfirmationToken(sink, fromEmail);
    setClock(() => new Date(start.getTime() + 48 * 3600 * 1000 - 1000));
    expect((await confirmPage(token)).statusCode).toBe(200);
    expect(await isVerified(keys)).toBe(1);
  });

  it('refuses a tampered link (another sender id under the same signature)', async () => {
    const { fromEmail } = await accountWithSender();
    const other = await accountWithSender();
    const token = await latestConfirmationToken(sink, fromEmail);
    const tampered = tamperedClaims('sender-confirmation', token, () => ({ account: other.keys.account_id, sender: 1, email: other.fromEmail }));
    const page = await confirmPage(tampered);
    expectPage(page, 400, 'invalid or has expired');
    expect(await isVerified(other.keys)).toBe(0);
  });

  it.each([
    ['no token', undefined],
    ['an empty token', ''],
    ['garbage', 'not-a-token'],
  ])('refuses %s with the same page', async (_case, token) => {
    const page = await confirmPage(token);
    expectPage(page, 400, 'The confirmation link is invalid or has expired.');
  });

  it('refuses a token signed for another purpose with the same claims', async () => {
    const { keys, fromEmail } = await accountWithSender();
    const unsubscribeToken = signToken('unsubscribe', { account: keys.account_id, sender: 1, email: fromEmail });
    expectPage(await confirmPage(unsubscribeToken), 400, 'invalid or has expired');
    expect(await isVerified(keys)).toBe(0);
  });

  it('does not verify a changed address with the link sent to the old one', async () => {
    const { keys, fromEmail } = await accountWithSender();
    const oldToken = await latestConfirmationToken(sink, fromEmail);
    const newAddress = uniqueAddress();
    await call(keys, 'POST', 'sender/update', { body: multipart(senderInput({ from_email: newAddress, sender_id: 1 })) });
    // Act
    const oldPage = await confirmPage(oldToken);
    // Assess
    expectPage(oldPage, 400, 'invalid or has expired');
    expect(await isVerified(keys)).toBe(0);
    expectPage(await confirmPage(await latestConfirmationToken(sink, newAddress)), 200, newAddress);
    expect(await isVerified(keys)).toBe(1);
  });

  it('answers a 404 page when the sender was deleted meanwhile', async () => {
    const { keys, fromEmail } = await accountWithSender();
    const token = await latestConfirmationToken(sink, fromEmail);
    await call(keys, 'DELETE', 'sender/delete', { query: { sender_id: 1 } });
    const page = await confirmPage(token);
    expectPage(page, 404, 'This sender no longer exists');
    expect(String(page.body)).not.toContain(fromEmail);
  });

  it('cannot verify a sender of an account the token was not issued for', async () => {
    const first = await accountWithSender();
    const second = await accountWithSender();
    // A genuine token for the first account's sender 1 names that account, so the second's sender 1 stays unverified.
    await confirmPage(signSenderConfirmation({ accountId: first.keys.account_id, senderId: 1, email: first.fromEmail }));
    expect(await isVerified(first.keys)).toBe(1);
    expect(await isVerified(second.keys)).toBe(0);
  });

  it('escapes the address on the success page', async () => {
    const keys = await newAccount();
    const fromEmail = `o'neil.${uniqueAddress()}`;
    await call(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
    const page = await confirmPage(await latestConfirmationToken(sink, fromEmail));
    expectPage(page, 200, `o&#39;neil.${fromEmail.slice("o'neil.".length)}`);
    expect(String(page.body)).not.toContain("o'neil");
  });

  it('answers 405 for another method', async () => {
    const result = await publicPages(apiEvent({ method: 'DELETE', path: 'public/senders/confirm' }));
    expect(result.statusCode).toBe(405);
    expect(result.headers?.allow).toBe('GET, POST');
  });
});
