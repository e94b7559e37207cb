// The sender verification mail through the mail port into the SES sink: on save, on a changed
// address and on resend (rate-limited), and what happens when the mail cannot be sent.
import { handler } from '../../functions/senders/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { resetConfig } from '../../shared/config';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, multipart, parsed, urlencoded, type Keys } from '../support/events';
import { freePort } from '../support/global-setup';
import { confirmationLink, latestConfirmationToken, mailsTo, senderInput, startMailSink, stopMailSink, uniqueAddress } from '../support/senders';

async function call(keys: Keys, method: string, path: string, options: Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'> = {}) {
  return parsed(await handler(apiEvent({ method, path, ...options, headers: authHeaders(keys) })));
}

async function senderDetails(keys: Keys, id: number): Promise<Record<string, unknown>> {
  const { body } = await call(keys, 'GET', 'sender/details', { query: { sender_id: id } });
  return (body.message as { sender: Record<string, unknown> }).sender;
}

/** Press the confirmation page's button. */
async function confirm(token: string) {
  return publicPages(apiEvent({ method: 'POST', path: 'public/senders/confirm', body: urlencoded({ token }) }));
}

describe('sender verification mail', () => {
  let sink: SesSink;

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
  }, 120_000);

  afterEach(() => resetClock());

  afterAll(async () => {
    await stopMailSink(sink);
  });

  it('goes to the from address on save, from the system address, with a signed confirmation link', async () => {
    const keys = await newAccount();
    const fromEmail = uniqueAddress();
    // Act
    await call(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail, from_name: 'Ann <Acme>', nickname: 'Your bank: call +1 555 0100 now' })) });
    // Assess
    const mails = await mailsTo(sink, fromEmail);
    expect(mails).toHaveLength(1);
    const mail = mails[0]!;
    expect(mail.from).toBe('no-reply@localhost');
    expect(mail.destination.to).toEqual([fromEmail]);
    expect(mail.subject).toBe('Please confirm your sender address');
    const link = confirmationLink(mail);
    expect(`${link.origin}${link.pathname}`).toBe('http://localhost:3000/api/public/senders/confirm');
    expect(link.searchParams.get('token')).toMatch(/^2[A-Za-z0-9_-]{4}\.[A-Za-z0-9_-]+$/);
    // Mail from the service's own domain says who asks by the account's number, never in words the
    // account chose (its sender name or nickname could be a phishing text).
    expect(mail.body.text).toBe(
      [
        'Hello,',
        '',
        `Account ${keys.account_id} of this email service asked to send email as ${fromEmail}. To confirm that this address is yours and may be used by that account, open this link:`,
        '',
        link.toString(),
        '',
        'This link is valid for 48 hours. If it has expired, ask for a new verification mail.',
        '',
        'If you did not expect this mail, you can ignore it; the address will not be used as a sender.',
        '',
      ].join('\n'),
    );
    expect(mail.body.html).toContain(`<p>Account ${keys.account_id} of this email service asked to send email as <strong>${fromEmail}</strong>.`);
    for (const chosen of ['Ann &lt;Acme&gt;', 'Your bank: call']) expect(mail.body.html).not.toContain(chosen);
    const sender = await senderDetails(keys, 1);
    expect(sender).toMatchObject({ is_verified: 0, send_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/) });
  });

  describe('sender/resend-mail', () => {
    it('sends another mail once a minute has passed since the last, and moves send_at', async () => {
      const keys = await newAccount();
      const fromEmail = uniqueAddress();
      const start = new Date('2030-01-01T10:00:00Z');
      setClock(() => start);
      await call(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
      setClock(() => new Date(start.getTime() + 60_000));
      // Act
      const result = await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } });
      // Assess
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Verification Mail Send' } });
      expect(await mailsTo(sink, fromEmail)).toHaveLength(2);
      expect((await senderDetails(keys, 1)).send_at).toBe('2030-01-01 10:01:00');
    });

    it('refuses a resend within a minute of the last mail, saying how long to wait', async () => {
      const keys = await newAccount();
      const fromEmail = uniqueAddress();
      const start = new Date('2030-01-01T10:00:00Z');
      setClock(() => start);
      await call(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
      setClock(() => new Date(start.getTime() + 45_000));
      const response = await handler(apiEvent({ method: 'GET', path: 'sender/resend-mail', query: { sender_id: 1 }, headers: authHeaders(keys) }));
      expect(parsed(response)).toEqual({ status: 429, body: { status: 'failed', errors: 'Please wait before requesting another verification mail.' } });
      expect(response.headers?.['retry-after']).toBe('15');
      expect(await mailsTo(sink, fromEmail)).toHaveLength(1);
      expect((await senderDetails(keys, 1)).send_at).toBe('2030-01-01 10:00:00');
    });

    it('lets only one of two simultaneous resends through', async () => {
      const keys = await newAccount();
      const fromEmail = uniqueAddress();
      const start = new Date('2030-01-01T10:00:00Z');
      setClock(() => start);
      await call(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
      setClock(() => new Date(start.getTime() + 120_000));
      const results = await Promise.all([1, 2].map(() => call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } })));
      expect(results.map((result) => result.status).sort()).toEqual([200, 429]);
      expect(await mailsTo(sink, fromEmail)).toHaveLength(2);
    });

    it('answers Record Not Found for an unknown id and for another account', async () => {
      const keys = await newAccount();
      await call(keys, 'POST', 'sender/save', { body: multipart(senderInput()) });
      const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
      expect(await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 2 } })).toEqual(notFound);
      expect(await call(await newAccount(), 'GET', 'sender/resend-mail', { query: { sender_id: 1 } })).toEqual(notFound);
    });

    it('needs the id as an integer', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'sender/resend-mail')).toEqual({
        status: 422,
        body: { status: 'failed', errors: { sender_id: ['The sender id field is required.'] } },
      });
      expect(await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 'x' } })).toEqual({
        status: 422,
        body: { status: 'failed', errors: { sender_id: ['The sender id field must be an integer.'] } },
      });
    });
  });

  describe('sender/update', () => {
    it('keeps a verified sender verified when the address stays, and sends no mail', async () => {
      const keys = await newAccount();
      const fields = senderInput();
      await call(keys, 'POST', 'sender/save', { body: multipart(fields) });
      await confirm(await latestConfirmationToken(sink, fields.from_email as string));
      await call(keys, 'POST', 'sender/update', { body: multipart({ ...fields, nickname: 'Renamed', sender_id: 1 }) });
      expect(await senderDetails(keys, 1)).toMatchObject({ is_verified: 1, nickname: 'Renamed' });
      expect(await mailsTo(sink, fields.from_email as string)).toHaveLength(1);
    });

    it('makes a changed address unverified and sends the new address its own mail', async () => {
      const keys = await newAccount();
      const fields = senderInput();
      const newAddress = uniqueAddress();
      await call(keys, 'POST', 'sender/save', { body: multipart(fields) });
      await confirm(await latestConfirmationToken(sink, fields.from_email as string));
      expect((await senderDetails(keys, 1)).is_verified).toBe(1);
      // Act
      const result = await call(keys, 'POST', 'sender/update', { body: multipart({ ...fields, from_email: newAddress, sender_id: 1 }) });
      // Assess
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Updated Successfully' } });
      expect(await senderDetails(keys, 1)).toMatchObject({ from_email: newAddress, is_verified: 0 });
      expect(await mailsTo(sink, newAddress)).toHaveLength(1);
    });
  });

  describe('when the mail cannot be sent', () => {
    const useEndpoint = (endpoint: string) => {
      process.env.SES_ENDPOINT = endpoint;
      resetConfig();
    };

    afterEach(() => useEndpoint(sink.endpoint));

    it('still saves the sender, records no mail as sent, and resend reports the failure', async () => {
      const keys = await newAccount();
      useEndpoint(`http://127.0.0.1:${await freePort()}`);
      const saved = await call(keys, 'POST', 'sender/save', { body: multipart(senderInput()) });
      expect(saved).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect((await senderDetails(keys, 1)).send_at).toBeNull();
      const resend = await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } });
      expect(resend).toEqual({ status: 500, body: { status: 'failed', errors: 'Internal server error.' } });
      expect((await senderDetails(keys, 1)).send_at).toBeNull();
      // Once the mail service is back, a resend goes through at once (the failed try did not count).
      useEndpoint(sink.endpoint);
      expect((await call(keys, 'GET', 'sender/resend-mail', { query: { sender_id: 1 } })).status).toBe(200);
    }, 60_000);
  });
});
