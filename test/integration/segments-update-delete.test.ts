// Segments through the Lambda handler on DynamoDB Local: update and delete, exact bodies.
import { addContactType } from '../../shared/contact-types/repository';
import { addContact } from '../../shared/audience/contact-service';
import { newAccount } from '../support/accounts';
import { callSegments, listSegments, segmentContact as contact, segmentForm } from '../support/segments';
import { type Keys, multipart } from '../support/events';

type Account = Keys & { account_id: number };

const call = callSegments;

describe('segments: update and delete', () => {
  let owner: Account;
  let stranger: Account;

  beforeAll(async () => {
    owner = await newAccount('Owner');
    stranger = await newAccount('Stranger');
  });

  describe('segment/update', () => {
    it('replaces name, rules and type, rebuilds membership and moves updated_at', async () => {
      const keys = await newAccount();
      const first = await addContactType(keys.account_id, 'First');
      const second = await addContactType(keys.account_id, 'Second');
      await addContact(keys.account_id, contact(first.id, 'a@example.com', { city: 'Kochi' }), {});
      await addContact(keys.account_id, contact(second.id, 'b@example.com', { city: 'Pune' }), {});
      await addContact(keys.account_id, contact(second.id, 'c@example.com', { city: 'Puri' }), {});
      await call(keys, 'POST', 'segment/save', { body: segmentForm(first.id, 'Kochi', [['city', 'is', 'Kochi']]) });
      const before = (await listSegments(keys))[0] as Record<string, unknown>;
      const result = await call(keys, 'POST', 'segment/update', {
        body: segmentForm(second.id, 'P cities', [['city', 'starts with', 'p']], { segment_id: 1 }),
      });
      const after = (await listSegments(keys))[0] as Record<string, unknown>;
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Updated Successfully' } });
      expect(before.segment_emails_count).toBe(1);
      expect(after).toMatchObject({ id: 1, contact_type_id: second.id, segment_name: 'P cities', select_field: ['city'], select_operator: ['starts with'], value: ['p'], segment_emails_count: 2 });
      expect(after.created_at).toBe(before.created_at);
      expect(String(after.updated_at) >= String(before.updated_at)).toBe(true);
    });

    it('needs the segment id and reports it with the other fields', async () => {
      const result = await call(owner, 'POST', 'segment/update', { body: multipart({ segment_name: 'Only a name' }) });
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            segment_id: ['The segment id field is required.'],
            contact_type_id: ['The contact type id field is required.'],
            select_field: ['The select field field is required.'],
            select_operator: ['The select operator field is required.'],
          },
        },
      });
    });

    it('validates the rules as save does', async () => {
      const keys = await newAccount();
      const type = await addContactType(keys.account_id, 'Type');
      await call(keys, 'POST', 'segment/save', { body: segmentForm(type.id, 'Valid', [['city', 'is', 'x']]) });
      const result = await call(keys, 'POST', 'segment/update', { body: segmentForm(type.id, 'Invalid', [['shoe_size', 'is', '9']], { segment_id: 1 }) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { 'select_field.0': ['The selected select field.0 is invalid.'] } } });
      expect((await listSegments(keys))[0]).toMatchObject({ segment_name: 'Valid', select_field: ['city'] });
    });

    it("answers Record Not Found for an unknown segment and for another account's", async () => {
      const keys = await newAccount();
      const type = await addContactType(keys.account_id, 'Kept');
      await call(keys, 'POST', 'segment/save', { body: segmentForm(type.id, 'Untouched', [['city', 'is', 'x']]) });
      const strangerType = await addContactType(stranger.account_id, 'Theirs too');
      const unknown = await call(keys, 'POST', 'segment/update', { body: segmentForm(type.id, 'Y', [['city', 'is', 'y']], { segment_id: 99 }) });
      const foreign = await call(stranger, 'POST', 'segment/update', { body: segmentForm(strangerType.id, 'Hijacked', [['city', 'is', 'y']], { segment_id: 1 }) });
      expect(unknown).toEqual({ status: 404, body: { status: 'failed', errors: 'Record Not Found' } });
      expect(foreign).toEqual(unknown);
      expect((await listSegments(keys))[0]?.segment_name).toBe('Untouched');
    });
  });

  describe('segment/delete', () => {
    it("answers the spec's success body with the text in errors; the segment and its recipients are gone", async () => {
      const keys = await newAccount();
      const type = await addContactType(keys.account_id, 'Type');
      await addContact(keys.account_id, contact(type.id, 'a@example.com'), {});
      await call(keys, 'POST', 'segment/save', { body: segmentForm(type.id, 'All', [['email', 'is not empty']]) });
      const result = await call(keys, 'DELETE', 'segment/delete', { query: { segment_id: 1 } });
      expect(result).toEqual({ status: 200, body: { status: 'success', errors: 'Deleted Successfully' } });
      expect(await listSegments(keys)).toEqual([]);
      const recipients = await call(keys, 'GET', 'segment/email/list', { query: { segment_id: 1 } });
      expect(recipients).toEqual({ status: 404, body: { status: 'failed', errors: 'Record not found' } });
    });

    it("answers Record Not Found for an unknown id, one already deleted and another account's", async () => {
      const keys = await newAccount();
      const type = await addContactType(keys.account_id, 'Type');
      await call(keys, 'POST', 'segment/save', { body: segmentForm(type.id, 'Once', [['city', 'is', 'x']]) });
      await call(keys, 'POST', 'segment/save', { body: segmentForm(type.id, 'Kept', [['city', 'is', 'x']]) });
      const notFound = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
      expect(await call(keys, 'DELETE', 'segment/delete', { query: { segment_id: 1 } })).toMatchObject({ status: 200 });
      expect(await call(keys, 'DELETE', 'segment/delete', { query: { segment_id: 1 } })).toEqual(notFound);
      expect(await call(keys, 'DELETE', 'segment/delete', { query: { segment_id: 77 } })).toEqual(notFound);
      expect(await call(stranger, 'DELETE', 'segment/delete', { query: { segment_id: 2 } })).toEqual(notFound);
      expect((await listSegments(keys)).map((segment) => segment.segment_name)).toEqual(['Kept']);
    });

    it.each([
      [{}, 'The segment id field is required.'],
      [{ segment_id: 'abc' }, 'The segment id field must be an integer.'],
    ])('refuses query %j', async (query, message) => {
      const result = await call(owner, 'DELETE', 'segment/delete', { query });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { segment_id: [message] } } });
    });
  });

});
