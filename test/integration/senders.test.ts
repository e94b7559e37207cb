// Senders through the Lambda handler on DynamoDB Local: every operation's exact bodies and messages.
import { handler } from '../../functions/senders/handler';
import type { SesSink } from '../../infra/local/ses-sink';
import { seedReferenceData } from '../../shared/reference-data/repository';
import { newAccount } from '../support/accounts';
import { handlerCaller, json, type Keys, multipart, timestampPattern } from '../support/events';
import { place, senderInput, startMailSink, stopMailSink, uniqueAddress } from '../support/senders';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const timestamp = timestampPattern;
const sqlTime = /^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}$/;
const { usa, california, losAngeles, germany, berlin, newYorkState } = place;

const call = handlerCaller(handler);

async function saveSender(keys: Keys, fields: Record<string, string | number> = senderInput()) {
  return call(keys, 'POST', 'sender/save', { body: multipart(fields) });
}

async function listSenders(keys: Keys): Promise<Record<string, unknown>[]> {
  const { body } = await call(keys, 'GET', 'senders');
  return (body.message as { senders: Record<string, unknown>[] }).senders;
}

async function senderDetails(keys: Keys, id: number): Promise<Record<string, unknown>> {
  const { body } = await call(keys, 'GET', 'sender/details', { query: { sender_id: id } });
  return (body.message as { sender: Record<string, unknown> }).sender;
}

const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };

describe('senders', () => {
  let sink: SesSink;
  let owner: Keys & { account_id: number };
  let stranger: Keys & { account_id: number };

  beforeAll(async () => {
    sink = await startMailSink();
    await seedReferenceData();
    owner = await newAccount('Owner');
    stranger = await newAccount('Stranger');
  }, 120_000);

  afterAll(async () => {
    await stopMailSink(sink);
  });

  describe('sender/save, and senders by GET and by POST', () => {
    it('saves a sender and lists it with every spec field, in order', async () => {
      const keys = await newAccount();
      const fields = senderInput();
      // Act
      const saved = await saveSender(keys, fields);
      const byGet = await call(keys, 'GET', 'senders');
      const byPost = await call(keys, 'POST', 'senders');
      // Assess
      expect(saved).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect(byGet.status).toBe(200);
      expect(byPost).toEqual(byGet);
      const senders = (byGet.body.message as { senders: Record<string, unknown>[] }).senders;
      expect(senders).toEqual([
        {
          id: 1,
          user_id: keys.account_id,
          from_name: 'Acme News',
          from_email: fields.from_email,
          reply_to_email: 'support@acme.example',
          country_id: usa,
          state_id: california,
          city_id: losAngeles,
          zip_code: '90001',
          company_address: '1 Main Street',
          company_address2: 'Suite 100',
          nickname: 'News',
          is_verified: 0,
          utr: expect.stringMatching(/^[A-Za-z0-9]{10}$/),
          send_at: expect.stringMatching(sqlTime),
          created_at: expect.stringMatching(timestamp),
          updated_at: expect.stringMatching(timestamp),
          deleted_at: null,
        },
      ]);
      expect(Object.keys(senders[0] as object)).toEqual([
        'id', 'user_id', 'from_name', 'from_email', 'reply_to_email', 'country_id', 'state_id', 'city_id', 'zip_code',
        'company_address', 'company_address2', 'nickname', 'is_verified', 'utr', 'send_at', 'created_at', 'updated_at', 'deleted_at',
      ]);
    });

    it('stores optional fields not given as null, and numbers the senders of each account from 1', async () => {
      const keys = await newAccount();
      const minimal = { from_name: 'Min', from_email: uniqueAddress(), reply_to_email: 'r@example.com', country_id: germany, company_address: 'Street 1', nickname: 'Min' };
      await saveSender(keys, senderInput());
      await saveSender(keys, minimal);
      const senders = await listSenders(keys);
      expect(senders.map((sender) => sender.id)).toEqual([1, 2]);
      expect(senders[1]).toMatchObject({ country_id: germany, state_id: null, city_id: null, zip_code: null, company_address2: null });
      expect(senders[0]?.utr).not.toBe(senders[1]?.utr);
    });

    it('accepts a JSON body, and a state without a city', async () => {
      const keys = await newAccount();
      const { city_id: _city, ...withoutCity } = senderInput({ country_id: germany, state_id: berlin });
      expect(await call(keys, 'POST', 'sender/save', { body: json(withoutCity) })).toEqual({ status: 200, body: { status: 'success', message: 'Added Successfully' } });
      expect((await listSenders(keys))[0]).toMatchObject({ state_id: berlin, city_id: null });
    });

    it('answers an empty list for a new account', async () => {
      const keys = await newAccount();
      expect(await call(keys, 'GET', 'senders')).toEqual({ status: 200, body: { status: 'success', message: { senders: [], next_cursor: null } } });
    });

    it('lists every missing required field at once', async () => {
      const result = await saveSender(owner, {});
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            from_name: ['The from name field is required.'],
            from_email: ['The from email field is required.'],
            reply_to_email: ['The reply to email field is required.'],
            country_id: ['The country id field is required.'],
            company_address: ['The company address field is required.'],
            nickname: ['The nickname field is required.'],
          },
        },
      });
    });

    it.each([
      ['from_email', 'an invalid address', { from_email: 'not-an-address' }, 'The from email field must be a valid email address.'],
      ['reply_to_email', 'an address without a dotted domain', { reply_to_email: 'a@b' }, 'The reply to email field must be a valid email address.'],
      ['company_address', '256 characters', { company_address: 'x'.repeat(256) }, 'The company address field must not be greater than 255 characters.'],
      ['company_address2', '256 characters', { company_address2: 'x'.repeat(256) }, 'The company address2 field must not be greater than 255 characters.'],
      ['country_id', 'an unknown country', { country_id: 999999 }, 'The selected country id is invalid.'],
      ['country_id', 'text', { country_id: 'abc' }, 'The country id field must be an integer.'],
      ['state_id', 'an unknown state', { state_id: newYorkState + 100000 }, 'The selected state id is invalid.'],
      ['state_id', 'a state of another country', { country_id: germany, state_id: california, city_id: '' }, 'The selected state id is invalid.'],
      ['city_id', 'a city of another state', { state_id: newYorkState }, 'The selected city id is invalid.'],
      ['city_id', 'a city without a state', { state_id: '' }, 'The selected city id is invalid.'],
      ['city_id', 'a decimal', { city_id: '1.5' }, 'The city id field must be an integer.'],
    ])('refuses %s: %s', async (field, _case, overrides, message) => {
      const result = await saveSender(owner, senderInput(overrides));
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
    });

    describe('header-bound fields', () => {
      const controls = (field: string) => `The ${field} field must not contain line breaks or control characters.`;

      it.each([
        ['from_name', 'a LF', { from_name: 'Acme\nNews' }],
        ['from_name', 'a CR', { from_name: 'Acme\rNews' }],
        ['from_name', 'an injected header after a CRLF', { from_name: 'Acme\r\nBcc: victim@example.com' }],
        ['from_name', 'a tab', { from_name: 'Acme\tNews' }],
        ['from_name', 'a NUL', { from_name: 'Acme\u0000News' }],
        ['from_name', 'an escape', { from_name: 'Acme\u001bNews' }],
        ['from_name', 'a DEL', { from_name: 'Acme\u007fNews' }],
        ['from_email', 'a control character', { from_email: 'news\u0001@acme.example' }],
        ['reply_to_email', 'a DEL', { reply_to_email: 'support\u007f@acme.example' }],
      ])('refuses %s with %s, and stores nothing', async (field, _case, overrides) => {
        const keys = await newAccount();
        const result = await saveSender(keys, senderInput(overrides));
        expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [controls(field.replace(/_/g, ' '))] } } });
        expect(await listSenders(keys)).toEqual([]);
      });

      it('refuses a line break in a JSON body too, reported with the other fields', async () => {
        const keys = await newAccount();
        const result = await call(keys, 'POST', 'sender/save', { body: json(senderInput({ from_name: 'Acme\r\nNews', company_address: 'x'.repeat(256) })) });
        expect(result).toEqual({
          status: 422,
          body: {
            status: 'failed',
            errors: {
              from_name: ['The from name field must not contain line breaks or control characters.'],
              company_address: ['The company address field must not be greater than 255 characters.'],
            },
          },
        });
      });

      it('trims line breaks around a name, as every text field is trimmed, and keeps non-ASCII names', async () => {
        const keys = await newAccount();
        expect((await saveSender(keys, senderInput({ from_name: '\r\nAcme Café\r\n' }))).status).toBe(200);
        expect((await listSenders(keys))[0]?.from_name).toBe('Acme Café');
      });
    });

    it('accepts 255 characters in each address line', async () => {
      const keys = await newAccount();
      const result = await saveSender(keys, senderInput({ company_address: 'a'.repeat(255), company_address2: 'b'.repeat(255) }));
      expect(result.status).toBe(200);
      expect((await listSenders(keys))[0]?.company_address).toHaveLength(255);
    });

    it('reports field rules and reference ids together, and stores nothing', async () => {
      const keys = await newAccount();
      const result = await saveSender(keys, senderInput({ from_name: '', country_id: 999999 }));
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            from_name: ['The from name field is required.'],
            country_id: ['The selected country id is invalid.'],
          },
        },
      });
      expect(await listSenders(keys)).toEqual([]);
    });

    it('never shows one account the senders of another', async () => {
      const keys = await newAccount();
      await saveSender(keys);
      expect(await listSenders(await newAccount())).toEqual([]);
    });
  });

  describe('sender/details', () => {
    it('answers the sender', async () => {
      const keys = await newAccount();
      const fields = senderInput();
      await saveSender(keys, fields);
      const result = await call(keys, 'GET', 'sender/details', { query: { sender_id: 1 } });
      // The list's fields, then whether the From domain is DMARC-aligned (example.com is no verified domain of the account).
      const alignment = { dmarc_aligned: 0, warning: expect.stringMatching(/^example\.com is not a verified sender domain of this account/) };
      expect(result).toEqual({ status: 200, body: { status: 'success', message: { sender: { ...(await listSenders(keys))[0], ...alignment } } } });
      expect((result.body.message as { sender: { from_email: string } }).sender.from_email).toBe(fields.from_email);
    });

    it('answers Record Not Found for an unknown id', async () => {
      expect(await call(owner, 'GET', 'sender/details', { query: { sender_id: 999 } })).toEqual(notFound);
    });

    it.each([
      [{}, 'The sender id field is required.'],
      [{ sender_id: 'abc' }, 'The sender id field must be an integer.'],
    ])('refuses query %j', async (query, message) => {
      const result = await call(owner, 'GET', 'sender/details', { query });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { sender_id: [message] } } });
    });

    it("does not show another account's sender", async () => {
      const keys = await newAccount();
      await saveSender(keys, senderInput({ nickname: 'Private nickname' }));
      const result = await call(stranger, 'GET', 'sender/details', { query: { sender_id: 1 } });
      expect(result).toEqual(notFound);
    });
  });

  describe('sender/update', () => {
    it('replaces the fields, keeps verification when the address stays, and moves updated_at', async () => {
      const keys = await newAccount();
      const fields = senderInput();
      await saveSender(keys, fields);
      const before = await senderDetails(keys, 1);
      const changes = senderInput({ from_email: fields.from_email as string, from_name: 'Renamed', country_id: germany, state_id: berlin, city_id: '', zip_code: '', nickname: 'New' });
      const result = await call(keys, 'POST', 'sender/update', { body: multipart({ ...changes, sender_id: 1 }) });
      const after = await senderDetails(keys, 1);
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Updated Successfully' } });
      expect(after).toEqual({
        ...before,
        from_name: 'Renamed',
        country_id: germany,
        state_id: berlin,
        city_id: null,
        zip_code: null,
        nickname: 'New',
        updated_at: expect.stringMatching(timestamp),
      });
      expect(String(after.updated_at) >= String(before.updated_at)).toBe(true);
    });

    it('needs sender_id as well as the sender fields', async () => {
      const result = await call(owner, 'POST', 'sender/update', { body: multipart(senderInput()) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { sender_id: ['The sender id field is required.'] } } });
    });

    it('applies the save rules', async () => {
      const keys = await newAccount();
      await saveSender(keys);
      const result = await call(keys, 'POST', 'sender/update', {
        body: multipart(senderInput({ sender_id: 1, company_address: 'y'.repeat(256), city_id: place.adlershof })),
      });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            city_id: ['The selected city id is invalid.'],
            company_address: ['The company address field must not be greater than 255 characters.'],
          },
        },
      });
    });

    it('refuses a line break in from_name and keeps the stored sender', async () => {
      const keys = await newAccount();
      await saveSender(keys);
      const before = await senderDetails(keys, 1);
      const result = await call(keys, 'POST', 'sender/update', {
        body: multipart(senderInput({ sender_id: 1, from_email: before.from_email as string, from_name: 'Acme\nBcc: victim@example.com' })),
      });
      expect(result).toEqual({
        status: 422,
        body: { status: 'failed', errors: { from_name: ['The from name field must not contain line breaks or control characters.'] } },
      });
      expect(await senderDetails(keys, 1)).toEqual(before);
    });

    it('answers Record Not Found for an unknown id', async () => {
      const result = await call(owner, 'POST', 'sender/update', { body: multipart(senderInput({ sender_id: 999 })) });
      expect(result).toEqual(notFound);
    });

    it("cannot change another account's sender", async () => {
      const keys = await newAccount();
      await saveSender(keys, senderInput({ nickname: 'Untouched' }));
      const result = await call(stranger, 'POST', 'sender/update', { body: multipart(senderInput({ sender_id: 1, nickname: 'Hijacked' })) });
      expect(result).toEqual(notFound);
      expect((await senderDetails(keys, 1)).nickname).toBe('Untouched');
    });
  });

  describe('sender/delete', () => {
    it("answers the spec's success body with the text in errors, and the sender is gone", async () => {
      const keys = await newAccount();
      await saveSender(keys);
      const result = await call(keys, 'DELETE', 'sender/delete', { query: { sender_id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', errors: 'Deleted Successfully' } });
      expect(await listSenders(keys)).toEqual([]);
      expect(await call(keys, 'DELETE', 'sender/delete', { query: { sender_id: 1 } })).toEqual(notFound);
    });

    it("cannot delete another account's sender", async () => {
      const keys = await newAccount();
      await saveSender(keys);
      expect(await call(stranger, 'DELETE', 'sender/delete', { query: { sender_id: 1 } })).toEqual(notFound);
      expect(await listSenders(keys)).toHaveLength(1);
    });

    it('needs the id', async () => {
      const result = await call(owner, 'DELETE', 'sender/delete');
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { sender_id: ['The sender id field is required.'] } } });
    });
  });

  describe('credentials', () => {
    it.each([
      ['GET', 'senders'],
      ['POST', 'senders'],
      ['GET', 'sender/details'],
      ['GET', 'sender/resend-mail'],
    ])('answers 401 with both messages when both headers are missing (%s %s)', async (method, path) => {
      const result = await call(undefined, method, path);
      expect(result).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('refuses a wrong secret', async () => {
      const result = await call({ public_key: owner.public_key, secret_key: stranger.secret_key }, 'GET', 'senders');
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
    });
  });

  describe('paging', () => {
    it('pages with limit and cursor, and refuses a tampered or foreign cursor', async () => {
      const [keys, other] = [await newAccount(), await newAccount()];
      for (let i = 1; i <= 5; i++) await saveSender(keys, senderInput({ nickname: `Sender ${i}` }));
      for (let i = 1; i <= 2; i++) await saveSender(other);
      const list: ListCall = (account, query) => call(account, 'GET', 'senders', { query });
      await expectFiveItemsToPage({ call: list, listName: 'senders', owner: keys, foreign: { call: list, keys: other } });
    });
  });
});
