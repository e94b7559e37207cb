// Senders on the account's verified sender domains, through the handlers on DynamoDB Local with the
// local identity adapter: such a sender is verified at once with no mail; sender/details says whether
// its From domain is DMARC-aligned (a verified, DKIM-signed domain of the account) and warns when not.
import { randomBytes, randomUUID } from 'node:crypto';
import { handler as domainsHandler } from '../../functions/sender-domains/handler';
import { handler as sendersHandler } from '../../functions/senders/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { identities } from '../../shared/identities/identity-port';
import { markLocalIdentityVerified } from '../../shared/identities/local-identities';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { handlerCaller, multipart, type Keys } from '../support/events';
import { mailsTo, senderInput, startMailSink, stopMailSink } from '../support/senders';

type Account = Keys & { account_id: number };

const domains = handlerCaller(domainsHandler);
const senders = handlerCaller(sendersHandler);

const freshDomain = () => `mail.d${randomBytes(5).toString('hex')}.example.com`;

/** A domain registered for the account and, as DNS would, verified (domains:verify locally). */
async function verifiedDomain(keys: Keys, domain = freshDomain()): Promise<string> {
  expect((await domains(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) })).status).toBe(200);
  await markLocalIdentityVerified(domain);
  expect((await domains(keys, 'GET', 'sender-domains/details', { query: { domain } })).body).toMatchObject({ message: { senderDomain: { status: 'verified' } } });
  return domain;
}

async function saveSender(keys: Keys, fromEmail: string): Promise<void> {
  const result = await senders(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
  expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
}

async function senderDetails(keys: Keys, id = 1): Promise<Record<string, unknown>> {
  const { status, body } = await senders(keys, 'GET', 'sender/details', { query: { sender_id: id } });
  expect(status).toBe(200);
  return (body.message as { sender: Record<string, unknown> }).sender;
}

const notAlignedWarning = (domain: string) =>
  `${domain} is not a verified sender domain of this account, so receivers may reject or junk its mail under DMARC: register it under sender-domains and publish its DKIM records.`;
const freeMailWarning = (domain: string) =>
  `${domain} is a free-mail domain whose DMARC policy lets receivers reject mail sent from it by other services: send from a domain of your own.`;

describe('senders on verified sender domains', () => {
  let sink: SesSink;
  let owner: Account;

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
    owner = await newAccount('Domain sender owner');
  });

  afterAll(() => stopMailSink(sink));

  it('verifies a sender on a verified domain at once and sends no verification mail', async () => {
    const keys = await newAccount();
    const domain = await verifiedDomain(keys);
    const local = `NEWS-${randomUUID()}`;
    // The domain matches whatever its case (the address rule stores it in lower case).
    await saveSender(keys, `${local}@${domain.toUpperCase()}`);
    expect(await senderDetails(keys)).toMatchObject({ from_email: `${local}@${domain}`, is_verified: 1, send_at: null, dmarc_aligned: 1 });
    expect(await senderDetails(keys)).not.toHaveProperty('warning');
    expect(await mailsTo(sink, `${local}@${domain}`)).toEqual([]);
  });

  it('still mails a sender whose domain is registered but pending', async () => {
    const keys = await newAccount();
    const domain = freshDomain();
    await domains(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) });
    const address = `news-${randomUUID()}@${domain}`;
    await saveSender(keys, address);
    expect(await senderDetails(keys)).toMatchObject({ is_verified: 0, dmarc_aligned: 0, warning: notAlignedWarning(domain) });
    expect(await mailsTo(sink, address)).toHaveLength(1);
  });

  it('verifies the senders already on a domain when it becomes verified, and only those', async () => {
    const keys = await newAccount();
    const domain = freshDomain();
    await domains(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) });
    await saveSender(keys, `news-${randomUUID()}@${domain}`);
    await saveSender(keys, `other-${randomUUID()}@example.net`);
    expect(await senderDetails(keys, 1)).toMatchObject({ is_verified: 0 });
    await markLocalIdentityVerified(domain);
    expect((await domains(keys, 'GET', 'sender-domains/details', { query: { domain } })).body).toMatchObject({ message: { senderDomain: { status: 'verified' } } });
    expect(await senderDetails(keys, 1)).toMatchObject({ is_verified: 1, dmarc_aligned: 1 });
    expect(await senderDetails(keys, 2)).toMatchObject({ is_verified: 0, dmarc_aligned: 0 });
  });

  it("does not count another account's verified domain", async () => {
    const domain = await verifiedDomain(owner);
    const keys = await newAccount();
    const address = `news-${randomUUID()}@${domain}`;
    await saveSender(keys, address);
    expect(await senderDetails(keys)).toMatchObject({ is_verified: 0, dmarc_aligned: 0, warning: notAlignedWarning(domain) });
    expect(await mailsTo(sink, address)).toHaveLength(1);
  });

  it('verifies a sender moved onto a verified domain at once, with no mail', async () => {
    const keys = await newAccount();
    const domain = await verifiedDomain(keys);
    await saveSender(keys, `someone-${randomUUID()}@example.net`);
    const address = `news-${randomUUID()}@${domain}`;
    const result = await senders(keys, 'POST', 'sender/update', { body: multipart(senderInput({ sender_id: 1, from_email: address })) });
    expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Updated Successfully' } });
    expect(await senderDetails(keys)).toMatchObject({ from_email: address, is_verified: 1, dmarc_aligned: 1 });
    expect(await mailsTo(sink, address)).toEqual([]);
  });

  it('warns about a free-mail domain, and still lets the sender be saved', async () => {
    const keys = await newAccount();
    const address = `someone-${randomUUID()}@Gmail.com`;
    await saveSender(keys, address);
    const sender = await senderDetails(keys);
    expect(sender).toMatchObject({ is_verified: 0, dmarc_aligned: 0, warning: freeMailWarning('gmail.com') });
    // The two fields come last, after the spec's own.
    expect(Object.keys(sender).slice(-2)).toEqual(['dmarc_aligned', 'warning']);
  });

  describe('subdomains of a verified domain (SES lets a verified domain send from every subdomain)', () => {
    it('verifies a sender on a subdomain at once, aligned, with no mail', async () => {
      const keys = await newAccount();
      const domain = await verifiedDomain(keys);
      const address = `news-${randomUUID()}@eu.news.${domain}`;
      await saveSender(keys, address);
      expect(await senderDetails(keys)).toMatchObject({ from_email: address, is_verified: 1, dmarc_aligned: 1 });
      expect(await senderDetails(keys)).not.toHaveProperty('warning');
      expect(await mailsTo(sink, address)).toEqual([]);
    });

    it('finds the verified domain above an address over a hundred labels deep (more than one batch read)', async () => {
      const keys = await newAccount();
      const domain = await verifiedDomain(keys);
      const address = `n@${'a.'.repeat(105)}${domain}`;
      await saveSender(keys, address);
      expect(await senderDetails(keys)).toMatchObject({ from_email: address, is_verified: 1, dmarc_aligned: 1 });
    });

    it('does not count a domain that merely ends like the verified one', async () => {
      const keys = await newAccount();
      const domain = await verifiedDomain(keys);
      const address = `news-${randomUUID()}@x${domain}`;
      await saveSender(keys, address);
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 0, dmarc_aligned: 0, warning: notAlignedWarning(`x${domain}`) });
      expect(await mailsTo(sink, address)).toHaveLength(1);
    });

    it('leaves a subdomain another account verified to that account', async () => {
      // Only possible when the domain's claim had gone unproven past SES's time when the other account saved the subdomain.
      const keys = await newAccount();
      const domain = freshDomain();
      setClock(() => new Date(Date.now() - 74 * 3_600_000));
      try {
        expect((await domains(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) })).status).toBe(200);
      } finally {
        resetClock();
      }
      const subdomain = `shop.${domain}`;
      const other = await newAccount();
      await verifiedDomain(other, subdomain);
      await markLocalIdentityVerified(domain);
      expect((await domains(keys, 'GET', 'sender-domains/details', { query: { domain } })).body).toMatchObject({ message: { senderDomain: { status: 'verified' } } });
      const address = `news-${randomUUID()}@eu.${subdomain}`;
      await saveSender(keys, address);
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 0, dmarc_aligned: 0, warning: notAlignedWarning(`eu.${subdomain}`) });
      expect(await mailsTo(sink, address)).toHaveLength(1);
      await saveSender(other, `news-${randomUUID()}@eu.${subdomain}`);
      expect(await senderDetails(other)).toMatchObject({ is_verified: 1, dmarc_aligned: 1 });
    });

    it("is not blocked by another account's unverified claim on the subdomain", async () => {
      const domain = freshDomain();
      const subdomain = `shop.${domain}`;
      expect((await domains(await newAccount(), 'POST', 'sender-domains/save', { body: multipart({ domain: subdomain }) })).status).toBe(200);
      const keys = await newAccount();
      await verifiedDomain(keys, domain);
      await saveSender(keys, `news-${randomUUID()}@${subdomain}`);
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 1, dmarc_aligned: 1 });
    });

    it('verifies the senders on its subdomains when the domain becomes verified', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      await domains(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) });
      await saveSender(keys, `news-${randomUUID()}@eu.${domain}`);
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 0 });
      await markLocalIdentityVerified(domain);
      await domains(keys, 'GET', 'sender-domains/details', { query: { domain } });
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 1, dmarc_aligned: 1 });
    });

    it("takes back a subdomain sender's verification with the domain that gave it", async () => {
      const keys = await newAccount();
      const domain = await verifiedDomain(keys);
      const address = `news-${randomUUID()}@eu.${domain}`;
      await saveSender(keys, address);
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 1 });
      expect(await domains(keys, 'DELETE', 'sender-domains/delete', { query: { domain } })).toMatchObject({ status: 200 });
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 0, dmarc_aligned: 0, warning: notAlignedWarning(`eu.${domain}`) });
    });

    it('keeps a subdomain sender verified when a parent domain of the account still covers it', async () => {
      const keys = await newAccount();
      const parent = await verifiedDomain(keys);
      const child = `eu.${parent}`;
      expect((await domains(keys, 'POST', 'sender-domains/save', { body: multipart({ domain: child }) })).status).toBe(200);
      await markLocalIdentityVerified(child);
      await domains(keys, 'GET', 'sender-domains/details', { query: { domain: child } });
      await saveSender(keys, `news-${randomUUID()}@${child}`);
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 1 });
      await domains(keys, 'DELETE', 'sender-domains/delete', { query: { domain: child } });
      expect(await senderDetails(keys)).toMatchObject({ is_verified: 1, dmarc_aligned: 1 });
    });
  });

  it('takes back the verification a domain gave when the domain failed and went to another account', async () => {
    const keys = await newAccount();
    const domain = await verifiedDomain(keys);
    await saveSender(keys, `news-${randomUUID()}@${domain}`);
    expect(await senderDetails(keys)).toMatchObject({ is_verified: 1 });
    // Its identity deleted in SES behind the service's back: SES gave up on it.
    await identities().deleteDomain(domain);
    expect((await domains(keys, 'GET', 'sender-domains/details', { query: { domain } })).body).toMatchObject({ message: { senderDomain: { status: 'failed' } } });
    expect((await domains(owner, 'POST', 'sender-domains/save', { body: multipart({ domain }) })).status).toBe(200);
    expect(await senderDetails(keys)).toMatchObject({ is_verified: 0, dmarc_aligned: 0 });
  });

  it('warns that a domain of the account stops being aligned once deleted', async () => {
    const keys = await newAccount();
    const domain = await verifiedDomain(keys);
    await saveSender(keys, `news-${randomUUID()}@${domain}`);
    await domains(keys, 'DELETE', 'sender-domains/delete', { query: { domain } });
    expect(await senderDetails(keys)).toMatchObject({ dmarc_aligned: 0, warning: notAlignedWarning(domain) });
  });
});
