// Sender domains through the Lambda handler on DynamoDB Local with the local identity adapter: exact
// bodies of save, list, details and delete, each validation message, a domain held by one account
// refused to another (also when both race), not-found, credentials, and other accounts kept apart.
import { randomBytes } from 'node:crypto';
import { handler } from '../../functions/sender-domains/handler';
import { domainHolder } from '../../shared/identities/domain-repository';
import { identities } from '../../shared/identities/identity-port';
import { localIdentities, markLocalIdentityVerified } from '../../shared/identities/local-identities';
import { resetClock, setClock } from '../../shared/time';
import { newAccount } from '../support/accounts';
import { handlerCaller, json, type Keys, multipart, timestampPattern } from '../support/events';

type Account = Keys & { account_id: number };

const call = handlerCaller(handler);

/** A domain no other test uses (the local identities are shared by every account of the table). */
const freshDomain = (label = 'mail') => `${label}.d${randomBytes(5).toString('hex')}.example.com`;

const save = (keys: Keys | undefined, domain: string) => call(keys, 'POST', 'sender-domains/save', { body: multipart({ domain }) });
const details = (keys: Keys, domain: string) => call(keys, 'GET', 'sender-domains/details', { query: { domain } });
const remove = (keys: Keys, domain: string) => call(keys, 'DELETE', 'sender-domains/delete', { query: { domain } });

/** Easy DKIM's three CNAMEs for the domain, whatever the tokens. */
function dkimRecords(domain: string) {
  const record = { name: expect.stringMatching(new RegExp(`^[0-9a-f]{32}\\._domainkey\\.${domain.replace(/\./g, '\\.')}$`)), type: 'CNAME', value: expect.stringMatching(/^[0-9a-f]{32}\.dkim\.amazonses\.com$/) };
  return [record, record, record];
}

const invalid = (errors: Record<string, string[]>) => ({ status: 422, body: { status: 'failed', errors } });
const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
const deleted = { status: 200, body: { status: 'success', message: 'Deleted Successfully' } };

describe('sender domains', () => {
  let owner: Account;
  let stranger: Account;

  beforeAll(async () => {
    owner = await newAccount('Domain owner');
    stranger = await newAccount('Domain stranger');
  });

  describe('sender-domains/save, sender-domains and details', () => {
    it('registers a domain pending, with the three CNAMEs to publish, and lists it', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      const result = await save(keys, domain);
      expect(result).toEqual({ status: 200, body: { status: 'success', message: { domain, status: 'pending', dkim_records: dkimRecords(domain) } } });
      const { dkim_records: records } = result.body.message as { dkim_records: { name: string; value: string }[] };
      // Each CNAME points at its own token.
      for (const record of records) expect(record.value.split('.')[0]).toBe(record.name.split('.')[0]);
      expect(new Set(records.map((record) => record.name)).size).toBe(3);
      const listed = { domain, status: 'pending', dkim_records: records, created_at: expect.stringMatching(timestampPattern) };
      expect(await call(keys, 'GET', 'sender-domains')).toEqual({ status: 200, body: { status: 'success', message: { senderDomains: [listed] } } });
      expect(await details(keys, domain)).toEqual({ status: 200, body: { status: 'success', message: { senderDomain: listed } } });
    });

    it('stores a domain in lower case and lists an account\'s domains in name order', async () => {
      const keys = await newAccount();
      const label = `d${randomBytes(5).toString('hex')}`;
      await save(keys, `News.${label}.Example.COM`);
      await save(keys, `alpha.${label}.example.com`);
      const { body } = await call(keys, 'GET', 'sender-domains');
      expect((body.message as { senderDomains: { domain: string }[] }).senderDomains.map((entry) => entry.domain)).toEqual([
        `alpha.${label}.example.com`,
        `news.${label}.example.com`,
      ]);
      expect((await details(keys, `NEWS.${label}.example.com`)).status).toBe(200);
    });

    it('answers an empty list for a new account', async () => {
      expect(await call(await newAccount(), 'GET', 'sender-domains')).toEqual({ status: 200, body: { status: 'success', message: { senderDomains: [] } } });
    });

    it('shows the domain verified once its DNS records are found (domains:verify locally), and stores it', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      await save(keys, domain);
      expect(await markLocalIdentityVerified(domain)).toBe(true);
      const result = await details(keys, domain);
      expect(result.body).toEqual({ status: 'success', message: { senderDomain: expect.objectContaining({ domain, status: 'verified' }) } });
      const { body } = await call(keys, 'GET', 'sender-domains');
      expect((body.message as { senderDomains: { status: string }[] }).senderDomains.map((entry) => entry.status)).toEqual(['verified']);
    });

    it('shows a domain whose identity was deleted behind its back as failed', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      await save(keys, domain);
      await identities().deleteDomain(domain);
      expect((await details(keys, domain)).body).toEqual({ status: 'success', message: { senderDomain: expect.objectContaining({ status: 'failed' }) } });
    });

    it.each([
      [{}, 'The domain field is required.'],
      [{ domain: '' }, 'The domain field is required.'],
      [{ domain: 'localhost' }, 'The domain field must be a valid domain name.'],
      [{ domain: 'not a domain.com' }, 'The domain field must be a valid domain name.'],
      [{ domain: '-bad.example.com' }, 'The domain field must be a valid domain name.'],
      [{ domain: 'example.com.' }, 'The domain field must be a valid domain name.'],
      [{ domain: 'someone@example.com' }, 'The domain field must be a valid domain name.'],
      [{ domain: `${'a'.repeat(63)}.${'b'.repeat(63)}.${'c'.repeat(63)}.${'d'.repeat(60)}.com` }, 'The domain field must not be greater than 253 characters.'],
      [{ domain: 7 }, 'The domain field must be a string.'],
    ])('refuses %j', async (body, message) => {
      const keys = await newAccount();
      expect(await call(keys, 'POST', 'sender-domains/save', { body: json(body) })).toEqual(invalid({ domain: [message] }));
      expect((await call(keys, 'GET', 'sender-domains')).body).toEqual({ status: 'success', message: { senderDomains: [] } });
    });

    it('undoes the claim when the identity cannot be registered, so a retry succeeds', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      const failing = jest.spyOn(localIdentities, 'registerDomain').mockRejectedValueOnce(new Error('SES is unreachable'));
      try {
        const result = await save(keys, domain);
        expect(result.status).toBe(500);
        expect(JSON.stringify(result.body)).not.toContain('SES is unreachable');
      } finally {
        failing.mockRestore();
      }
      expect(await domainHolder(domain)).toBeUndefined();
      expect((await call(keys, 'GET', 'sender-domains')).body).toEqual({ status: 'success', message: { senderDomains: [] } });
      expect((await save(keys, domain)).status).toBe(200);
    });

    it('refuses a domain the account has already registered', async () => {
      const domain = freshDomain();
      await save(owner, domain);
      expect(await save(owner, domain.toUpperCase())).toEqual(invalid({ domain: ['The domain has already been taken.'] }));
    });
  });

  describe('one domain, one account', () => {
    it('refuses a domain another account holds, and never shows it verified to that account', async () => {
      const domain = freshDomain();
      await save(owner, domain);
      expect(await save(stranger, domain)).toEqual(invalid({ domain: ['The domain is already registered by another account.'] }));
      await markLocalIdentityVerified(domain);
      expect(await details(stranger, domain)).toEqual(notFound);
      expect((await call(stranger, 'GET', 'sender-domains')).body).toEqual({ status: 'success', message: { senderDomains: [] } });
      expect(await domainHolder(domain)).toBe(owner.account_id);
    });

    it('gives a domain to exactly one of two accounts saving it at once', async () => {
      const domain = freshDomain();
      const [first, second] = await Promise.all([save(await newAccount(), domain), save(await newAccount(), domain)]);
      expect([first.status, second.status].sort()).toEqual([200, 422]);
      expect([first, second].find((result) => result.status === 422)?.body.errors).toEqual({ domain: ['The domain is already registered by another account.'] });
    });

    it("refuses a domain whose identity exists outside every account (the service's own) and leaves that identity alone", async () => {
      const domain = freshDomain();
      const own = await identities().registerDomain(domain);
      expect(await save(owner, domain)).toEqual(invalid({ domain: ['The domain is already registered by another account.'] }));
      expect(await domainHolder(domain)).toBeUndefined();
      expect(await identities().domainIdentity(domain)).toEqual(own);
    });

    describe('a claim its holder never proved', () => {
      /** Save the domain for the account as if `hoursAgo` hours had passed since. */
      async function saveHoursAgo(keys: Keys, domain: string, hoursAgo: number) {
        setClock(() => new Date(Date.now() - hoursAgo * 3_600_000));
        try {
          return await save(keys, domain);
        } finally {
          resetClock();
        }
      }
      const recordsOf = (result: { body: Record<string, unknown> }) => (result.body.message as { dkim_records: { name: string }[] }).dkim_records.map((record) => record.name);

      it("goes to the next account that saves the domain once SES's 72 hours to find its DKIM records are over", async () => {
        const squatter = await newAccount();
        const domain = freshDomain();
        const squatted = await saveHoursAgo(squatter, domain, 74);
        const taken = await save(owner, domain);
        expect(taken).toEqual({ status: 200, body: { status: 'success', message: { domain, status: 'pending', dkim_records: dkimRecords(domain) } } });
        // A new identity, so records the squatter may publish later prove nothing for the new holder.
        expect(recordsOf(taken)).not.toEqual(expect.arrayContaining(recordsOf(squatted)));
        expect(await domainHolder(domain)).toBe(owner.account_id);
        expect(await details(squatter, domain)).toEqual(notFound);
        expect((await call(squatter, 'GET', 'sender-domains')).body).toEqual({ status: 'success', message: { senderDomains: [] } });
        expect(await markLocalIdentityVerified(domain)).toBe(true);
        expect((await details(owner, domain)).body).toMatchObject({ message: { senderDomain: { status: 'verified' } } });
      });

      it('goes to the next account at once when SES has given up on it (failed)', async () => {
        const squatter = await newAccount();
        const domain = freshDomain();
        await save(squatter, domain);
        await identities().deleteDomain(domain);
        expect((await details(squatter, domain)).body).toMatchObject({ message: { senderDomain: { status: 'failed' } } });
        expect((await save(owner, domain)).status).toBe(200);
        expect(await domainHolder(domain)).toBe(owner.account_id);
      });

      it('stays with its holder while SES may still find the records', async () => {
        const holder = await newAccount();
        const domain = freshDomain();
        await saveHoursAgo(holder, domain, 71);
        expect(await save(owner, domain)).toEqual(invalid({ domain: ['The domain is already registered by another account.'] }));
        expect(await domainHolder(domain)).toBe(holder.account_id);
      });

      it('stays with its holder when SES verified it after the last look, which the refusal records', async () => {
        const holder = await newAccount();
        const domain = freshDomain();
        await saveHoursAgo(holder, domain, 74);
        await markLocalIdentityVerified(domain);
        expect(await save(owner, domain)).toEqual(invalid({ domain: ['The domain is already registered by another account.'] }));
        expect(await domainHolder(domain)).toBe(holder.account_id);
        expect((await call(holder, 'GET', 'sender-domains')).body).toMatchObject({ message: { senderDomains: [{ domain, status: 'verified' }] } });
      });

      it('never goes anywhere once verified, however old', async () => {
        const holder = await newAccount();
        const domain = freshDomain();
        await saveHoursAgo(holder, domain, 500);
        await markLocalIdentityVerified(domain);
        await details(holder, domain);
        expect(await save(owner, domain)).toEqual(invalid({ domain: ['The domain is already registered by another account.'] }));
        expect(await domainHolder(domain)).toBe(holder.account_id);
      });
    });

    it('lets another account register a domain once its holder deleted it', async () => {
      const domain = freshDomain();
      await save(owner, domain);
      expect(await remove(owner, domain)).toEqual(deleted);
      expect((await save(stranger, domain)).body).toEqual({ status: 'success', message: expect.objectContaining({ domain, status: 'pending' }) });
      expect(await domainHolder(domain)).toBe(stranger.account_id);
    });
  });

  describe('sender-domains/delete and not found', () => {
    it('deletes the domain, its claim and its identity', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      await save(keys, domain);
      expect(await remove(keys, domain)).toEqual(deleted);
      expect((await call(keys, 'GET', 'sender-domains')).body).toEqual({ status: 'success', message: { senderDomains: [] } });
      expect(await domainHolder(domain)).toBeUndefined();
      expect(await identities().domainIdentity(domain)).toBeUndefined();
      expect(await remove(keys, domain)).toEqual(notFound);
    });

    it("answers Record Not Found for an unknown domain and for another account's, and deletes nothing of it", async () => {
      const domain = freshDomain();
      await save(owner, domain);
      expect(await details(owner, freshDomain())).toEqual(notFound);
      expect(await details(stranger, domain)).toEqual(notFound);
      expect(await remove(stranger, domain)).toEqual(notFound);
      expect((await details(owner, domain)).status).toBe(200);
      expect(await domainHolder(domain)).toBe(owner.account_id);
    });

    it.each([
      ['GET', 'sender-domains/details'],
      ['DELETE', 'sender-domains/delete'],
    ])('%s %s needs a valid domain', async (method, path) => {
      expect(await call(owner, method, path)).toEqual(invalid({ domain: ['The domain field is required.'] }));
      expect(await call(owner, method, path, { query: { domain: 'bad_domain' } })).toEqual(invalid({ domain: ['The domain field must be a valid domain name.'] }));
    });
  });

  describe('credentials', () => {
    it('answers 401 with both messages when both headers are missing', async () => {
      expect(await call(undefined, 'GET', 'sender-domains')).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('refuses a wrong secret and claims nothing', async () => {
      const keys = await newAccount();
      const domain = freshDomain();
      expect(await save({ public_key: keys.public_key, secret_key: stranger.secret_key }, domain)).toEqual({
        status: 401,
        body: { status: 'failed', errors: 'Invalid credentials.' },
      });
      expect(await domainHolder(domain)).toBeUndefined();
    });
  });
});
