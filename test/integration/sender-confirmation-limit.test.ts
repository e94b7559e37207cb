// The sender-confirmation link has the per-link limit of the other public pages: past
// PUBLIC_RATE_LIMIT requests a minute, its page (GET) and its button (POST) answer 429 with
// Retry-After and verify nothing, while another sender's link is unaffected. The clock is fixed, so
// each test's requests fall in one window.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { resetConfig } from '../../shared/config';
import { signSenderConfirmation } from '../../shared/senders/confirmation';
import { addSender, getSender } from '../../shared/senders/repository';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { apiEvent, urlencoded } from '../support/events';
import { expectHtmlPage } from '../support/recipient-pages';
import { place, uniqueAddress } from '../support/senders';

const pagesLimit = 2;
let hour = Date.UTC(2032, 0, 1, 9, 0, 0);

beforeAll(() => {
  process.env.PUBLIC_RATE_LIMIT = String(pagesLimit);
  resetConfig();
});

afterAll(() => {
  delete process.env.PUBLIC_RATE_LIMIT;
  resetConfig();
  resetClock();
});

beforeEach(() => {
  hour += 3_600_000;
  const at = hour + 5_000;
  setClock(() => new Date(at));
});

/** An unverified sender of a new account and its confirmation link's token. */
async function unverifiedSender(): Promise<{ accountId: number; senderId: number; token: string }> {
  const { account_id: accountId } = await newAccount();
  const sender = await addSender(accountId, {
    from_name: 'Acme News',
    from_email: uniqueAddress(),
    reply_to_email: 'support@acme.example',
    country_id: place.usa,
    state_id: place.california,
    city_id: place.losAngeles,
    zip_code: '90001',
    company_address: '1 Main Street',
    company_address2: null,
    nickname: 'News',
  });
  return { accountId, senderId: sender.id, token: signSenderConfirmation({ accountId, senderId: sender.id, email: sender.from_email }) };
}

const show = (token: string): Promise<APIGatewayProxyStructuredResultV2> => publicPages(apiEvent({ method: 'GET', path: 'public/senders/confirm', query: { token } }));
const press = (token: string): Promise<APIGatewayProxyStructuredResultV2> =>
  publicPages(apiEvent({ method: 'POST', path: 'public/senders/confirm', body: urlencoded({ token }) }));

test('a confirmation link past its limit gets a 429 page with Retry-After; another link is unaffected', async () => {
  // Prepare
  const busy = await unverifiedSender();
  const quiet = await unverifiedSender();

  // Act
  const allowed = [];
  for (let i = 0; i < pagesLimit; i++) allowed.push(await show(busy.token));
  const refusedView = await show(busy.token);
  const refusedPress = await press(busy.token);
  const other = await show(quiet.token);

  // Assess
  for (const page of allowed) expect(expectHtmlPage(page, 200)).toContain('Confirm sender address');
  for (const refused of [refusedView, refusedPress]) {
    expect(expectHtmlPage(refused, 429)).toContain('<h1>Too many requests</h1>');
    // The window is a minute and the clock stands 5 s into it.
    expect(refused.headers?.['retry-after']).toBe('55');
  }
  expect(expectHtmlPage(other, 200)).toContain('Confirm sender address');
  expect((await getSender(busy.accountId, busy.senderId)).is_verified).toBe(0);
});

test('the button within the limit verifies the sender; a refused or forged link costs no count', async () => {
  // Prepare
  const sender = await unverifiedSender();
  for (let i = 0; i < 5; i++) expect((await show(`${sender.token}x`)).statusCode).toBe(400);

  // Act
  const shown = await show(sender.token);
  const pressed = await press(sender.token);

  // Assess
  expectHtmlPage(shown, 200);
  expect(expectHtmlPage(pressed, 200)).toContain('is confirmed');
  expect((await getSender(sender.accountId, sender.senderId)).is_verified).toBe(1);
});
