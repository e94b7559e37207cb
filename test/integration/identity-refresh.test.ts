// The periodic check of pending identities (functions/identity-refresh) and the domain-delete rule,
// through the handlers on DynamoDB Local with the local identity adapter (markLocalIdentityVerified
// stands in for DNS and for SES's verification click): a pending domain found verified verifies the
// account's senders on it and releases their waiting sends; a sender whose address identity is
// verified is verified; only young waits of the pending index are read; deleting a domain takes back
// the verification its senders had from it.
import { randomBytes, randomUUID } from 'node:crypto';
import { handler as domainsHandler } from '../../functions/sender-domains/handler';
import { handler as refreshHandler } from '../../functions/identity-refresh/handler';
import { handler as sendersHandler } from '../../functions/senders/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { localIdentities, markLocalIdentityVerified } from '../../shared/identities/local-identities';
import { pendingSenderHours, refreshPendingIdentities, type RefreshRun } from '../../shared/sender-verification/refresh-service';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { localIdentityKey } from '../../shared/identities/keys';
import { queryAll } from '../../shared/table/records';
import { newAccount } from '../support/accounts';
import { deployedRuntime, fakeSesIdentities } from '../support/fake-ses-identities';
import { apiEvent, handlerCaller, multipart, urlencoded, type Keys } from '../support/events';
import { latestConfirmationToken, senderInput, startMailSink, stopMailSink } from '../support/senders';
import { callSingleSends, jobName, newSendingAccount, pendingJobTimes, sendFields } from '../support/single-sends';
import { handler as publicPages } from '../../functions/public-pages/handler';

const domains = handlerCaller(domainsHandler);
const senders = handlerCaller(sendersHandler);

const freshDomain = () => `mail.d${randomBytes(5).toString('hex')}.example.com`;

const runCheck = () => refreshHandler({}) as Promise<RefreshRun>;

async function saveDomain(keys: Keys, domain: string): Promise<void> {
  expect((await domains(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) })).status).toBe(200);
}

async function saveSender(keys: Keys, fromEmail: string): Promise<void> {
  expect((await senders(keys, 'POST', 'sender/save', { body: multipart(senderInput({ from_email: fromEmail })) })).status).toBe(200);
}

async function senderState(keys: Keys, id = 1): Promise<0 | 1> {
  // Read through the list: it shows what is stored, never asking the identity port.
  const { body } = await senders(keys, 'GET', 'senders');
  const found = (body.message as { senders: { id: number; is_verified: 0 | 1 }[] }).senders.find((sender) => sender.id === id);
  if (!found) throw new Error(`no sender ${id}`);
  return found.is_verified;
}

async function domainStatus(keys: Keys, domain: string): Promise<string> {
  const { body } = await domains(keys, 'GET', 'sender-domains');
  return (body.message as { senderDomains: { domain: string; status: string }[] }).senderDomains.find((entry) => entry.domain === domain)?.status ?? 'none';
}

describe('identity refresh and the domain-delete rule', () => {
  let sink: SesSink;

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
  });

  afterAll(() => stopMailSink(sink));

  describe('the periodic check', () => {
    it('verifies a pending domain found verified, and the senders on it, releasing their waiting send', async () => {
      const account = await newSendingAccount();
      const { keys } = account;
      const domain = freshDomain();
      await saveDomain(keys, domain);
      // Sender 2 (sender 1 is the fixture's), on the pending domain: unverified, mailed.
      await saveSender(keys, `news-${randomUUID()}@${domain}`);
      const created = await callSingleSends(keys, 'POST', 'single/send/create', { body: multipart(sendFields(account, { sender_id: 2 })) });
      const utr = (created.body.message as { utr: string }).utr;
      expect(await pendingJobTimes(jobName(keys.account_id, utr))).toEqual([]);

      await runCheck();
      expect(await domainStatus(keys, domain)).toBe('pending');
      expect(await senderState(keys, 2)).toBe(0);

      await markLocalIdentityVerified(domain);
      const run = await runCheck();
      expect(run.domains.verified).toBeGreaterThanOrEqual(1);
      expect(await domainStatus(keys, domain)).toBe('verified');
      expect(await senderState(keys, 2)).toBe(1);
      expect(await pendingJobTimes(jobName(keys.account_id, utr))).toHaveLength(1);
    });

    it("verifies a sender whose address identity is verified, and reads it no more once verified", async () => {
      const keys = await newAccount();
      const address = `news-${randomUUID()}@example.net`;
      await saveSender(keys, address);
      await runCheck();
      expect(await senderState(keys)).toBe(0);
      await markLocalIdentityVerified(address);
      await runCheck();
      expect(await senderState(keys)).toBe(1);
      // Verified senders are no longer read: the port is not asked about the address again.
      const asked = jest.spyOn(localIdentities, 'addressIdentity');
      try {
        await runCheck();
        expect(asked.mock.calls.map(([asked]) => asked)).not.toContain(address);
      } finally {
        asked.mockRestore();
      }
    });

    it('reads only the waits SES may still settle: a sender registered more than a day ago has one last look, as its link expires', async () => {
      const keys = await newAccount();
      const address = `news-${randomUUID()}@example.net`;
      await saveSender(keys, address);
      await markLocalIdentityVerified(address);
      const later = new Date(Date.now() + (pendingSenderHours + 1) * 3_600_000);
      const asked = jest.spyOn(localIdentities, 'addressIdentity');
      try {
        await refreshPendingIdentities({ now: later });
        await refreshPendingIdentities({ now: later });
        // Not among the young waits: asked once, by the expiry's last look (clicked in time, it is verified).
        expect(asked.mock.calls.filter(([asked]) => asked === address)).toHaveLength(1);
      } finally {
        asked.mockRestore();
      }
      expect(await senderState(keys)).toBe(1);
    });

    it("counts the region's identities against SES's quota", async () => {
      const run = await runCheck();
      expect(run.identitiesInUse).toBe((await queryAll({ partition: localIdentityKey('').pk })).length);
      expect(run.identitiesInUse).toBeGreaterThan(0);
    });

    it("never verifies a sender through an address another account holds", async () => {
      const holder = await newAccount('Holder');
      const other = await newAccount('Other');
      const address = `news-${randomUUID()}@example.net`;
      await saveSender(holder, address);
      await saveSender(other, address);
      await markLocalIdentityVerified(address);
      await runCheck();
      expect(await senderState(holder)).toBe(1);
      expect(await senderState(other)).toBe(0);
    });
  });

  describe('deleting a domain', () => {
    it('takes back the verification its senders had from it, unless their own address identity is verified', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      await saveDomain(keys, domain);
      // Saved while the domain is pending, so both addresses were registered (and mailed).
      await saveSender(keys, `news-${randomUUID()}@${domain}`);
      const own = `own-${randomUUID()}@${domain}`;
      await saveSender(keys, own);
      await saveSender(keys, `else-${randomUUID()}@example.net`);
      // Sender 2's owner confirmed its address identity (SES's click); then DNS verified the domain.
      await markLocalIdentityVerified(own);
      await markLocalIdentityVerified(domain);
      expect(await domainStatusRefreshed(keys, domain)).toBe('verified');
      expect([await senderState(keys, 1), await senderState(keys, 2), await senderState(keys, 3)]).toEqual([1, 1, 0]);
      const stranger = await newAccount();
      await saveSender(stranger, `news-${randomUUID()}@${domain}`);

      expect(await domains(keys, 'DELETE', 'sender-domains/delete', { query: { domain } })).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect([await senderState(keys, 1), await senderState(keys, 2), await senderState(keys, 3)]).toEqual([0, 1, 0]);
      expect(await senderState(stranger)).toBe(0);
    });

    it('keeps a sender confirmed by its own link on the domain', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      const address = `news-${randomUUID()}@${domain}`;
      await saveSender(keys, address);
      const token = await latestConfirmationToken(sink, address);
      const confirmed = (await publicPages(apiEvent({ method: 'POST', path: 'public/senders/confirm', body: urlencoded({ token }) }))) as { statusCode: number };
      expect(confirmed.statusCode).toBe(200);
      await saveDomain(keys, domain);
      await markLocalIdentityVerified(domain);
      await domains(keys, 'GET', 'sender-domains/details', { query: { domain } });
      await domains(keys, 'DELETE', 'sender-domains/delete', { query: { domain } });
      expect(await senderState(keys)).toBe(1);
    });

    it('keeps, deployed, a sender whose own address identity SES has verified, and unverifies the others', async () => {
      const runtime = deployedRuntime();
      const ses = fakeSesIdentities();
      try {
        const keys = await newAccount();
        const domain = freshDomain();
        await saveDomain(keys, domain);
        const pendingOwn = `news-${randomUUID()}@${domain}`;
        const verifiedOwn = `own-${randomUUID()}@${domain}`;
        await saveSender(keys, pendingOwn);
        await saveSender(keys, verifiedOwn);
        expect(ses.inputsOf('SendCustomVerificationEmail').map((input) => input.EmailAddress)).toEqual([pendingOwn, verifiedOwn]);
        ses.click(verifiedOwn);
        ses.click(domain);
        expect(await domainStatusRefreshed(keys, domain)).toBe('verified');
        expect([await senderState(keys, 1), await senderState(keys, 2)]).toEqual([1, 1]);

        await domains(keys, 'DELETE', 'sender-domains/delete', { query: { domain } });
        expect(ses.inputsOf('DeleteEmailIdentity')).toEqual([{ EmailIdentity: domain }]);
        expect([await senderState(keys, 1), await senderState(keys, 2)]).toEqual([0, 1]);
      } finally {
        ses.restore();
        runtime.restore();
      }
    });
  });
});

async function domainStatusRefreshed(keys: Keys, domain: string): Promise<string> {
  const { body } = await domains(keys, 'GET', 'sender-domains/details', { query: { domain } });
  return (body.message as { senderDomain: { status: string } }).senderDomain.status;
}
