// Outbound webhooks through the Lambda handler on DynamoDB Local: exact bodies of list, save and delete,
// each validation message, the per-account limit, not-found, credentials, and other accounts kept apart.
import { handler } from '../../functions/webhooks/handler';
import { resetConfig } from '../../shared/config';
import { getStoredWebhook } from '../../shared/webhooks/repository';
import { decryptSecret } from '../../shared/webhooks/secret';
import { newAccount } from '../support/accounts';
import { handlerCaller, json, type Keys, multipart, timestampPattern } from '../support/events';

type Account = Keys & { account_id: number };

const call = handlerCaller(handler);
const receiverUrl = 'https://hooks.example.com/email-events';

async function save(keys: Keys, url: string, events: string[]) {
  const fields: Record<string, string> = { url };
  events.forEach((event, index) => (fields[`events[${index}]`] = event));
  return call(keys, 'POST', 'webhooks/save', { body: multipart(fields) });
}

async function saved(keys: Keys, url: string, events: string[]): Promise<{ id: number; secret: string }> {
  const result = await save(keys, url, events);
  if (result.status !== 200) throw new Error(`save answered ${result.status}: ${JSON.stringify(result.body)}`);
  return result.body.message as { id: number; secret: string };
}

async function webhooks(keys: Keys) {
  const { body } = await call(keys, 'GET', 'webhooks');
  return (body.message as { webhooks: Record<string, unknown>[] }).webhooks;
}

const invalid = (errors: Record<string, string[]>) => ({ status: 422, body: { status: 'failed', errors } });
const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };

describe('webhooks', () => {
  let owner: Account;
  let stranger: Account;

  beforeAll(async () => {
    owner = await newAccount('Webhook owner');
    stranger = await newAccount('Webhook stranger');
  });

  describe('webhooks/save and webhooks', () => {
    it('saves a webhook, answers its id and secret once, and lists it without the secret', async () => {
      const keys = await newAccount();
      const result = await save(keys, receiverUrl, ['open', 'delivered', 'open']);
      const second = await call(keys, 'POST', 'webhooks/save', { body: json({ url: 'https://other.example.com/hook', events: ['unsubscribe'] }) });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: { id: 1, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) } } });
      expect(second).toEqual({ status: 200, body: { status: 'success', message: { id: 2, secret: expect.stringMatching(/^whsec_[A-Za-z0-9+/]{43}=$/) } } });
      const { secret } = result.body.message as { secret: string };
      expect((second.body.message as { secret: string }).secret).not.toBe(secret);
      expect(await call(keys, 'GET', 'webhooks')).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            webhooks: [
              // Each event once, in the catalogue's order.
              { id: 1, url: receiverUrl, events: ['delivered', 'open'], created_at: expect.stringMatching(timestampPattern) },
              { id: 2, url: 'https://other.example.com/hook', events: ['unsubscribe'], created_at: expect.stringMatching(timestampPattern) },
            ],
          },
        },
      });
      // Stored encrypted, and recoverable for signing.
      const stored = await getStoredWebhook(keys.account_id, 1);
      expect(stored?.encrypted_secret).not.toContain(secret.slice(6));
      expect(decryptSecret(stored?.encrypted_secret ?? '')).toBe(secret);
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'webhooks')).toEqual({ status: 200, body: { status: 'success', message: { webhooks: [] } } });
    });

    it('needs url and events', async () => {
      const result = await call(owner, 'POST', 'webhooks/save', { body: multipart({}) });
      expect(result).toEqual(invalid({ url: ['The url field is required.'], events: ['The events field is required.'] }));
    });

    it('refuses an unknown event, naming its index', async () => {
      expect(await save(owner, receiverUrl, ['open', 'opened'])).toEqual(invalid({ events: ['The selected events.1 is invalid.'] }));
    });

    it('refuses events that are not an array', async () => {
      const result = await call(owner, 'POST', 'webhooks/save', { body: multipart({ url: receiverUrl, events: 'open' }) });
      expect(result).toEqual(invalid({ events: ['The events field must be an array.'] }));
    });

    it('refuses an empty events list', async () => {
      const result = await call(owner, 'POST', 'webhooks/save', { body: json({ url: receiverUrl, events: [] }) });
      expect(result).toEqual(invalid({ events: ['The events field must have at least 1 items.'] }));
    });

    it('refuses a url that is not one', async () => {
      for (const url of ['not a url', 'ftp://example.com/hook', 'mailto:ops@example.com']) {
        expect(await save(owner, url, ['open'])).toEqual(invalid({ url: ['The url field must be a valid URL.'] }));
      }
    });

    it('refuses a url longer than 2048 characters', async () => {
      const url = `https://example.com/${'a'.repeat(2030)}`;
      expect(await save(owner, url, ['open'])).toEqual(invalid({ url: ['The url field must not be greater than 2048 characters.'] }));
    });

    it('allows plain http only to this machine when running locally', async () => {
      expect(await save(owner, 'http://hooks.example.com/events', ['open'])).toEqual(
        invalid({ url: ['The url field must start with one of the following: https://, http://localhost, http://127.0.0.1, http://[::1].'] }),
      );
      const keys = await newAccount();
      await saved(keys, 'http://127.0.0.1:9/hook', ['click']);
      await saved(keys, 'http://localhost:8080/hook', ['click']);
      expect((await webhooks(keys)).map((webhook) => webhook.url)).toEqual(['http://127.0.0.1:9/hook', 'http://localhost:8080/hook']);
    });

    it('refuses, deployed, http and any host that is not public, and stores nothing', async () => {
      const keys = await newAccount();
      process.env.APP_RUNTIME = 'aws';
      resetConfig();
      try {
        expect(await save(keys, 'http://127.0.0.1:9/hook', ['open'])).toEqual(invalid({ url: ['The url field must start with one of the following: https://.'] }));
        for (const url of ['https://127.0.0.1/hook', 'https://localhost:8443/hook', 'https://169.254.169.254/latest', 'https://[fd00::1]/hook']) {
          expect(await save(keys, url, ['open'])).toEqual(invalid({ url: ['The url field must name a host whose addresses are all public.'] }));
        }
      } finally {
        process.env.APP_RUNTIME = 'local';
        resetConfig();
      }
      expect(await webhooks(keys)).toEqual([]);
    });

    it('keeps an account to 10 webhooks', async () => {
      const keys = await newAccount();
      for (let i = 1; i <= 10; i++) await saved(keys, `${receiverUrl}/${i}`, ['open']);
      expect(await save(keys, `${receiverUrl}/11`, ['open'])).toEqual(
        invalid({ url: ['An account may have at most 10 webhooks; delete one first.'] }),
      );
      expect(await webhooks(keys)).toHaveLength(10);
      // A delete makes room again.
      await call(keys, 'DELETE', 'webhooks/delete', { query: { id: 3 } });
      await saved(keys, `${receiverUrl}/11`, ['open']);
      // The refused save took id 11 from the counter, as an auto-increment would.
      expect((await webhooks(keys)).map((webhook) => webhook.id)).toEqual([1, 2, 4, 5, 6, 7, 8, 9, 10, 12]);
    });

    it('holds the limit when saves race', async () => {
      const keys = await newAccount();
      const results = await Promise.all(Array.from({ length: 14 }, (_, i) => save(keys, `${receiverUrl}/${i}`, ['bounce'])));
      expect(results.filter((result) => result.status === 200)).toHaveLength(10);
      expect(results.filter((result) => result.status === 422)).toHaveLength(4);
      expect(await webhooks(keys)).toHaveLength(10);
    });
  });

  describe('webhooks/delete', () => {
    it('deletes a webhook', async () => {
      const keys = await newAccount();
      const { id } = await saved(keys, receiverUrl, ['complaint']);
      expect(await call(keys, 'DELETE', 'webhooks/delete', { query: { id } })).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await webhooks(keys)).toEqual([]);
      expect(await getStoredWebhook(keys.account_id, id)).toBeUndefined();
    });

    it('answers not found for an unknown or already deleted id', async () => {
      const keys = await newAccount();
      const { id } = await saved(keys, receiverUrl, ['complaint']);
      await call(keys, 'DELETE', 'webhooks/delete', { query: { id } });
      expect(await call(keys, 'DELETE', 'webhooks/delete', { query: { id } })).toEqual(notFound);
      expect(await call(keys, 'DELETE', 'webhooks/delete', { query: { id: 999 } })).toEqual(notFound);
    });

    it('needs an integer id', async () => {
      expect(await call(owner, 'DELETE', 'webhooks/delete')).toEqual(invalid({ id: ['The id field is required.'] }));
      expect(await call(owner, 'DELETE', 'webhooks/delete', { query: { id: 'abc' } })).toEqual(invalid({ id: ['The id field must be an integer.'] }));
    });
  });

  describe('accounts', () => {
    it("never shows or deletes another account's webhook", async () => {
      const { id } = await saved(owner, receiverUrl, ['open']);
      expect(await webhooks(stranger)).toEqual([]);
      expect(await call(stranger, 'DELETE', 'webhooks/delete', { query: { id } })).toEqual(notFound);
      expect((await webhooks(owner)).map((webhook) => webhook.id)).toContain(id);
    });
  });

  describe('credentials', () => {
    it('answers 401 with both messages when both headers are missing', async () => {
      expect(await call(undefined, 'GET', 'webhooks')).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('refuses a wrong secret and stores nothing', async () => {
      const keys = await newAccount();
      const result = await save({ public_key: keys.public_key, secret_key: stranger.secret_key }, receiverUrl, ['open']);
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
      expect(await webhooks(keys)).toEqual([]);
    });
  });
});
