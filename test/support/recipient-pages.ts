// Test helpers for the recipient pages: a single send to attach tokens to, unsubscribe groups, and
// requests to the public pages as a browser or a mail provider makes them (no credentials).
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { createSingleSend, getSingleSend, type SingleSendStatistics } from '../../shared/single-sends/repository';
import { addUnsubscribeGroup, type UnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { recipientToken } from '../../shared/public-links/recipient-links';
import type { SendRef } from '../../shared/ledger/send-ref';
import { resetClock, setClock } from '../../shared/time';
import { apiEvent, urlencoded } from './events';
import { tamperedClaims } from './token-tampering';

/** A stored single send (status 1; nothing schedules it) that statistics can be counted on. */
export async function storedSingleSend(accountId: number, unsubscribeGroupId = 1): Promise<SendRef & { kind: 'single-send' }> {
  const send = await createSingleSend(
    accountId,
    {
      template_id: 1,
      sender_id: 1,
      unsubscribe_group_id: unsubscribeGroupId,
      recipient_id: [{ id: '1', table: 'contacts_' }],
      exclude_specific_recipient_id: [],
      single_send_name: 'Spring news',
      subject: 'Spring news',
      preheader: '',
      from_sender: 'news@example.com',
      reply_to: 'news@example.com',
      sender_name: 'Example News',
      sender_address: '1 Main Street',
      schedule_type: 1,
      schedule_date: '2099-01-01',
      schedule_time: '00:00:00',
      template_json: null,
      template_html: '<p>Hello</p>',
    },
    new Date('2099-01-01T00:00:00Z'),
  );
  return { kind: 'single-send', accountId, utr: send.utr };
}

export async function sendStatistics(ref: SendRef & { kind: 'single-send' }): Promise<SingleSendStatistics> {
  const { triggered, delivered, unique_opens, total_opens, bounces, unsubscribes } = await getSingleSend(ref.accountId, ref.utr);
  return { triggered, delivered, unique_opens, total_opens, bounces, unsubscribes };
}

export function newGroup(accountId: number, group_name: string, is_display: 0 | 1 = 1, description = `All about ${group_name}`): Promise<UnsubscribeGroup> {
  return addUnsubscribeGroup(accountId, { group_name, description, is_display });
}

export { recipientToken };

/** A desktop browser's User-Agent: a person's open or click (statistics/engagement-rules.ts). */
export const browserUserAgent = 'Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/126.0.0.0 Safari/537.36';

/**
 * Run `act` as a person reading the mail does it: a while after it was sent, past the first seconds,
 * where only scanners click (the clock moved on for the while, then given back).
 */
export async function asAReader<T>(act: () => Promise<T>): Promise<T> {
  setClock(() => new Date(Date.now() + 60_000));
  try {
    return await act();
  } finally {
    resetClock();
  }
}

/** GET a public page with a token in its query, as a browser or mail client opens it. */
export function openPage(path: string, token?: string): Promise<APIGatewayProxyStructuredResultV2> {
  return publicPages(apiEvent({ method: 'GET', path, query: token === undefined ? {} : { token } }));
}

/** POST the preferences form as the page's buttons do. */
export function submitPreferences(fields: Record<string, string | number>): Promise<APIGatewayProxyStructuredResultV2> {
  return publicPages(apiEvent({ method: 'POST', path: 'public/preferences', body: urlencoded(fields) }));
}

/** The RFC 8058 one-click POST a mail provider sends. */
export function oneClick(token: string | undefined, body = 'List-Unsubscribe=One-Click'): Promise<APIGatewayProxyStructuredResultV2> {
  return publicPages(
    apiEvent({
      method: 'POST',
      path: 'public/unsubscribe',
      query: token === undefined ? {} : { token },
      body: { contentType: 'application/x-www-form-urlencoded', body: Buffer.from(body) },
    }),
  );
}

/** An HTML page's checks: status, the page headers, and the document frame. */
export function expectHtmlPage(page: APIGatewayProxyStructuredResultV2, status: number): string {
  expect(page.statusCode).toBe(status);
  expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
  expect(page.headers?.['cache-control']).toBe('no-store');
  expect(page.headers?.['referrer-policy']).toBe('no-referrer');
  const html = String(page.body);
  expect(html.startsWith('<!DOCTYPE html>\n<html lang="en">')).toBe(true);
  expect(html).toContain('<meta name="viewport" content="width=device-width, initial-scale=1">');
  expect(html).not.toContain('<script');
  return html;
}

/** A token whose claims say another address, under the original's proof (signature or tag). */
export function retargeted(token: string, email: string): string {
  return tamperedClaims('recipient', token, (claims) => ({ ...claims, e: email }));
}
