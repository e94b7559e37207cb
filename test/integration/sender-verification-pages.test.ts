// The pages SES's custom verification mail leads to after the click (the template's success and
// failure redirects): public, no credentials, rendered like the other public pages, writing nothing.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { apiEvent } from '../support/events';

async function open(path: string, method = 'GET'): Promise<APIGatewayProxyStructuredResultV2> {
  return publicPages(apiEvent({ method, path }));
}

describe('sender verification result pages', () => {
  it('says the address is verified', async () => {
    const page = await open('public/senders/verified');
    expect(page.statusCode).toBe(200);
    expect(page.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store', 'x-frame-options': 'DENY' });
    expect(page.body).toContain('<title>Sender address verified</title>');
    expect(page.body).toContain('<p>Thank you. Your address is verified and can now be used to send email.</p>');
  });

  it('says the link failed or expired', async () => {
    const page = await open('public/senders/verification-failed');
    expect(page.statusCode).toBe(400);
    expect(page.headers).toMatchObject({ 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-store' });
    expect(page.body).toContain('<title>This link is invalid or has expired</title>');
    expect(page.body).toContain('<p>The verification link is invalid or has expired. Ask for a new verification mail and use the link in it.</p>');
  });

  it('answers only GET', async () => {
    expect((await open('public/senders/verified', 'POST')).statusCode).toBe(405);
  });
});
