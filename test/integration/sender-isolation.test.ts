// No account takes over another's or the service's domain or address, through the handlers on DynamoDB
// Local: the local identity adapter answering as SES (inheritance from a verified parent domain, an
// identity made outside the service), sender domains refused around another account's or the
// service's domain, a domain verified by its own DKIM only, an unproven claim's clock kept across
// delete and save, and sender addresses verified only by their own confirmation or the account's own
// domain, never by SES's word alone, locally and deployed (SES faked at the SDK client).
import { randomBytes, randomUUID } from 'node:crypto';
import { handler as domainsHandler } from '../../functions/sender-domains/handler';
import { handler as publicPages } from '../../functions/public-pages/handler';
import { handler as sendersHandler } from '../../functions/senders/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { resetConfig } from '../../shared/config';
import { addressHolder } from '../../shared/identities/address-repository';
import { identities } from '../../shared/identities/identity-port';
import { addOutsideIdentity, markLocalIdentityVerified } from '../../shared/identities/local-identities';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { apiEvent, handlerCaller, multipart, urlencoded, type Keys } from '../support/events';
import { deployedRuntime, fakeSesIdentities, type FakeSesIdentities } from '../support/fake-ses-identities';
import { latestConfirmationToken, mailsTo, senderInput, startMailSink, stopMailSink } from '../support/senders';

const domains = handlerCaller(domainsHandler);
const senders = handlerCaller(sendersHandler);

const freshDomain = () => `d${randomBytes(5).toString('hex')}.example.com`;

const saveDomain = (keys: Keys, domain: string) => domains(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) });
const domainDetails = (keys: Keys, domain: string) => domains(keys, 'GET', 'sender-domains/details', { query: { domain } });
const saveSender = (keys: Keys, fromEmail: string) => senders(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) });
const deleteSender = (keys: Keys, id = 1) => senders(keys, 'DELETE', 'sender/delete', { query: { sender_id: id } });

const invalid = (field: string, message: string) => ({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
const added = { status: 200, body: { status: 'success', message: 'Added Successfully' } };
const senderDeleted = { status: 200, body: { status: 'success', errors: 'Deleted Successfully' } };

const underAnother = invalid('domain', 'The domain is a subdomain of a domain registered by another account.');
const aboveAnother = invalid('domain', 'The domain has a subdomain verified by another account.');
const reserved = invalid('domain', "The domain is reserved for this service's own mail.");
const serviceAddress = invalid('from_email', "The from email field must not be an address on this service's own sender domain.");

/** A domain saved for the account and verified by its own DNS records (domains:verify locally, a click on the fake SES deployed). */
async function verifiedDomain(keys: Keys, domain = freshDomain(), verify: (domain: string) => unknown = markLocalIdentityVerified): Promise<string> {
  expect((await saveDomain(keys, domain)).status).toBe(200);
  await verify(domain);
  expect((await domainDetails(keys, domain)).body).toMatchObject({ message: { senderDomain: { status: 'verified' } } });
  return domain;
}

async function senderVerified(keys: Keys, id = 1): Promise<unknown> {
  const { body } = await senders(keys, 'GET', 'sender/details', { query: { sender_id: id } });
  return (body.message as { sender: { is_verified: number } }).sender.is_verified;
}

/** Press the confirmation page's button of the newest verification mail to the address. */
async function confirmByLink(sink: SesSink, address: string): Promise<void> {
  const token = await latestConfirmationToken(sink, address);
  const result = (await publicPages(apiEvent({ method: 'POST', path: 'public/senders/confirm', body: urlencoded({ token }) }))) as { statusCode: number };
  expect(result.statusCode).toBe(200);
}

/** Run `body` with the service's own sender domain set to `domain`. */
async function withServiceDomain(domain: string, body: () => Promise<void>): Promise<void> {
  const saved = process.env.SENDER_DOMAIN;
  process.env.SENDER_DOMAIN = domain;
  resetConfig();
  try {
    await body();
  } finally {
    if (saved === undefined) delete process.env.SENDER_DOMAIN;
    else process.env.SENDER_DOMAIN = saved;
    resetConfig();
  }
}

/** Run `body` as if `hoursAgo` hours had passed since. */
async function hoursAgo<T>(hours: number, body: () => Promise<T>): Promise<T> {
  setClock(() => new Date(Date.now() - hours * 3_600_000));
  try {
    return await body();
  } finally {
    resetClock();
  }
}

describe('no account takes over what is not its own', () => {
  let sink: SesSink;

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
  });

  afterAll(() => stopMailSink(sink));

  describe('the local identity adapter answers as SES', () => {
    it('reports identities under a verified domain verified for sending at any depth, while a domain keeps its own DKIM status', async () => {
      const parent = freshDomain();
      await addOutsideIdentity(parent);
      await identities().registerDomain(`a.b.${parent}`);
      await identities().registerAddress(`ceo@x.y.${parent}`, { templateName: 'local' });
      expect(await identities().domainIdentity(`a.b.${parent}`)).toEqual({ status: 'pending', verifiedForSending: true, dkimRecords: expect.any(Array) });
      expect(await identities().addressIdentity(`ceo@x.y.${parent}`)).toEqual({ verifiedForSending: true });
      // Only labels count: a domain merely ending like it inherits nothing.
      await identities().registerAddress(`ceo@x${parent}`, { templateName: 'local' });
      expect(await identities().addressIdentity(`ceo@x${parent}`)).toEqual({ verifiedForSending: false });
      expect(await identities().addressIdentity(`nobody@${parent}`)).toBeUndefined();
    });

    it('keeps an identity made outside the service, and refuses to make it again', async () => {
      const address = `ops-${randomUUID()}@example.net`;
      await addOutsideIdentity(address);
      expect(await identities().addressIdentity(address)).toEqual({ verifiedForSending: true });
      const domain = freshDomain();
      await addOutsideIdentity(domain, 'pending');
      await expect(identities().registerDomain(domain)).rejects.toMatchObject({ name: 'IdentityTakenError' });
    });
  });

  describe('sender domains', () => {
    it("refuses a subdomain, at any depth, of another account's verified domain", async () => {
      const domain = await verifiedDomain(await newAccount('A'));
      const b = await newAccount('B');
      expect(await saveDomain(b, `news.${domain}`)).toEqual(underAnother);
      expect(await saveDomain(b, `eu.news.${domain}`)).toEqual(underAnother);
      expect((await domains(b, 'GET', 'sender-domains')).body).toEqual({ status: 'success', message: { senderDomains: [] } });
      expect(await identities().domainIdentity(`news.${domain}`)).toBeUndefined();
    });

    it("refuses a subdomain of another account's claim while it may still be proved, and not once it can no longer be", async () => {
      const young = freshDomain();
      await saveDomain(await newAccount(), young);
      expect(await saveDomain(await newAccount(), `news.${young}`)).toEqual(underAnother);
      const stale = freshDomain();
      const holder = await newAccount();
      await hoursAgo(74, () => saveDomain(holder, stale));
      expect((await saveDomain(await newAccount(), `news.${stale}`)).status).toBe(200);
    });

    it('lets an account register subdomains of its own domain, whose status is their own DKIM status only', async () => {
      const keys = await newAccount();
      const domain = await verifiedDomain(keys);
      expect((await saveDomain(keys, `news.${domain}`)).status).toBe(200);
      expect((await domainDetails(keys, `news.${domain}`)).body).toMatchObject({ message: { senderDomain: { domain: `news.${domain}`, status: 'pending' } } });
    });

    it('refuses a domain another account has verified a subdomain of, but not one whose subdomain claim is unproven', async () => {
      const parent = freshDomain();
      await verifiedDomain(await newAccount('A'), `shop.${parent}`);
      expect(await saveDomain(await newAccount('B'), parent)).toEqual(aboveAnother);
      const other = freshDomain();
      await saveDomain(await newAccount('A'), `shop.deep.${other}`);
      expect((await saveDomain(await newAccount('B'), other)).status).toBe(200);
    });

    it("refuses the service's own sender domain, every subdomain of it and the domains above it", async () => {
      await withServiceDomain('mail.service-own.example', async () => {
        const keys = await newAccount();
        for (const domain of ['mail.service-own.example', 'billing.mail.service-own.example', 'a.b.mail.service-own.example', 'service-own.example']) {
          expect(await saveDomain(keys, domain)).toEqual(reserved);
        }
        expect((await saveDomain(keys, `other.service-own-${randomBytes(4).toString('hex')}.example`)).status).toBe(200);
      });
    });

    it("refuses, locally, a subdomain of the service's own domain (the system address's)", async () => {
      expect(await saveDomain(await newAccount(), 'billing.localhost')).toEqual(reserved);
    });

    it('keeps the time an unproven claim has had across its delete and save, so re-saving cannot squat the domain', async () => {
      const squatter = await newAccount('Squatter');
      const domain = freshDomain();
      await hoursAgo(74, () => saveDomain(squatter, domain));
      await hoursAgo(4, () => domains(squatter, 'DELETE', 'sender-domains/delete', { query: { domain } }));
      expect((await hoursAgo(3, () => saveDomain(squatter, domain))).status).toBe(200);
      const owner = await newAccount('Owner');
      expect(await saveDomain(owner, domain)).toMatchObject({ status: 200, body: { message: { domain, status: 'pending' } } });
      expect((await domains(squatter, 'GET', 'sender-domains')).body).toEqual({ status: 'success', message: { senderDomains: [] } });
    });

    it('starts a new time to prove a domain once its holder proved it and saves it again', async () => {
      const holder = await newAccount();
      const domain = freshDomain();
      await hoursAgo(80, () => verifiedDomain(holder, domain));
      await domains(holder, 'DELETE', 'sender-domains/delete', { query: { domain } });
      expect((await saveDomain(holder, domain)).status).toBe(200);
      expect(await saveDomain(await newAccount(), domain)).toEqual(invalid('domain', 'The domain is already registered by another account.'));
    });
  });

  describe('sender addresses', () => {
    it("keeps an address under another account's verified domain unverified until its own confirmation", async () => {
      const domain = await verifiedDomain(await newAccount('A'));
      const b = await newAccount('B');
      const address = `ceo-${randomUUID()}@news.${domain}`;
      expect(await saveSender(b, address)).toEqual(added);
      expect(await senderVerified(b)).toBe(0);
      expect(await mailsTo(sink, address)).toHaveLength(1);
      await confirmByLink(sink, address);
      expect(await senderVerified(b)).toBe(1);
    });

    it("never takes SES's word for an identity made outside the service, and never deletes it", async () => {
      const address = `ops-${randomUUID()}@example.net`;
      await addOutsideIdentity(address);
      const keys = await newAccount();
      expect(await saveSender(keys, address)).toEqual(added);
      expect(await senderVerified(keys)).toBe(0);
      expect(await deleteSender(keys)).toEqual(senderDeleted);
      expect(await identities().addressIdentity(address)).toEqual({ verifiedForSending: true });
    });

    it("refuses an address on the service's own sender domain, on save and on update", async () => {
      await withServiceDomain('mail.service-own.example', async () => {
        const keys = await newAccount();
        // A domain above the service's is not the service's: SES lets a domain cover only what is below it.
        expect(await saveSender(keys, 'billing@service-own.example')).toEqual(added);
        for (const address of ['billing@mail.service-own.example', 'ceo@eu.Mail.service-own.example']) {
          expect(await saveSender(keys, address)).toEqual(serviceAddress);
          expect(await senders(keys, 'POST', 'sender/update', { body: multipart(senderInput({ sender_id: 1, from_email: address })) })).toEqual(serviceAddress);
        }
        expect((await senders(keys, 'GET', 'senders')).body).toMatchObject({ message: { senders: [{ from_email: 'billing@service-own.example' }] } });
      });
    });
  });

  describe('sender addresses deployed', () => {
    let ses: FakeSesIdentities;
    let runtime: { restore(): void };

    beforeEach(() => {
      runtime = deployedRuntime();
      ses = fakeSesIdentities();
    });

    afterEach(() => {
      ses.restore();
      runtime.restore();
    });

    it('counts a domain verified by its own DKIM only, never because SES sends from it through a verified parent', async () => {
      const keys = await newAccount();
      const domain = await verifiedDomain(keys, freshDomain(), (name) => ses.click(name));
      expect((await saveDomain(keys, `news.${domain}`)).status).toBe(200);
      expect((await domainDetails(keys, `news.${domain}`)).body).toMatchObject({ message: { senderDomain: { status: 'pending' } } });
    });

    it("mails our own link for an address under another account's verified domain, and never verifies it through SES's word", async () => {
      const domain = await verifiedDomain(await newAccount('A'), freshDomain(), (name) => ses.click(name));
      const b = await newAccount('B');
      const address = `ceo-${randomUUID()}@news.${domain}`;
      expect(await saveSender(b, address)).toEqual(added);
      expect(ses.inputsOf('SendCustomVerificationEmail')).toEqual([]);
      expect(await senderVerified(b)).toBe(0);
      await confirmByLink(sink, address);
      expect(await senderVerified(b)).toBe(1);
      expect(await addressHolder(address)).toBeUndefined();
    });

    it("never takes SES's word for the operator's own verified address, and never deletes it", async () => {
      const address = `ops-${randomUUID()}@example.net`;
      ses.addOutside(address);
      const keys = await newAccount();
      expect(await saveSender(keys, address)).toEqual(added);
      expect(ses.inputsOf('SendCustomVerificationEmail')).toEqual([]);
      expect(await mailsTo(sink, address)).toHaveLength(1);
      expect(await senderVerified(keys)).toBe(0);
      expect(await deleteSender(keys)).toEqual(senderDeleted);
      expect(ses.inputsOf('DeleteEmailIdentity')).toEqual([]);
      expect(ses.has(address)).toBe(true);
    });

    it("stops taking SES's word once a verified domain comes above the address", async () => {
      const keys = await newAccount();
      const parent = freshDomain();
      const address = `ceo-${randomUUID()}@news.${parent}`;
      expect(await saveSender(keys, address)).toEqual(added);
      expect(ses.inputsOf('SendCustomVerificationEmail').map((input) => input.EmailAddress)).toEqual([address]);
      // Someone verifies the parent outside the service before the owner clicked: SES now says verified.
      ses.addOutside(parent);
      expect(await senderVerified(keys)).toBe(0);
    });

    it('keeps an address working for each of two accounts when the other deletes its sender', async () => {
      const address = `news-${randomUUID()}@acme-${randomBytes(4).toString('hex')}.example`;
      const a = await newAccount('A');
      const b = await newAccount('B');
      await saveSender(a, address);
      ses.click(address);
      expect(await senderVerified(a)).toBe(1);
      await saveSender(b, address);
      await confirmByLink(sink, address);
      expect(await senderVerified(b)).toBe(1);

      expect(await deleteSender(a)).toEqual(senderDeleted);
      expect(ses.has(address)).toBe(true);
      expect(await senderVerified(b)).toBe(1);
      // The click was A's: nobody takes SES's word for the address any more.
      expect(await addressHolder(address)).toBeUndefined();
      const c = await newAccount('C');
      await saveSender(c, address);
      expect(await senderVerified(c)).toBe(0);

      expect(await deleteSender(b)).toEqual(senderDeleted);
      expect(ses.has(address)).toBe(true);
      expect(await deleteSender(c)).toEqual(senderDeleted);
      expect(ses.inputsOf('DeleteEmailIdentity')).toEqual([{ EmailIdentity: address }]);
      expect(ses.has(address)).toBe(false);
    });
  });
});
