// Automations through the Lambda handler on DynamoDB Local: create, list, details, duplicate, pause,
// set-live, delete and bulk-delete, with their exact bodies.
import { addAutomationTotals } from '../../shared/automations/totals';
import { addContactType } from '../../shared/contact-types/repository';
import { addSegment } from '../../shared/segments/repository';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { unsubscribeGroupKey } from '../../shared/suppressions/keys';
import { deleteExistingItem } from '../../shared/table/records';
import { resetClock, setClock } from '../../shared/time';
import {
  addStep,
  automationWorld,
  call,
  createAutomation,
  detailsOf,
  isoPattern,
  listOf,
  schedulesOf,
  uuidPattern,
  type AutomationWorld,
} from '../support/automations';
import { multipart, urlencoded } from '../support/events';
import { expectFiveItemsToPage, type ListCall } from '../support/paging';

const nf = { status: 404, body: { status: 'failed', errors: 'Record not found' } };
const NF = { status: 404, body: { status: 'failed', errors: 'Record Not Found' } };
const unknownUtr = '00000000-0000-4000-8000-000000000000';
const specFieldOrder = [
  'id', 'user_id', 'automation_for', 'automation_for_table', 'automation_name', 'exit_criteria', 'unsubscribe_group_id',
  'automation_type', 'utr', 'status', 'live_at', 'total_triggered', 'total_delivered', 'total_unique_opens', 'total_opens',
  'total_bounces', 'total_unsubscribe', 'deleted_at', 'created_at', 'updated_at',
];

describe('automations', () => {
  let world: AutomationWorld;
  let stranger: AutomationWorld;

  beforeAll(async () => {
    world = await automationWorld();
    stranger = await automationWorld();
  });

  describe('automations/create and details', () => {
    it('creates a draft welcome automation on a contact type and shows every spec field in order', async () => {
      const fresh = await automationWorld();
      const created = await call(fresh.keys, 'POST', 'automations/create', {
        body: multipart({ type: 'welcome', automation_for: `contacts_${fresh.contactTypeId}`, automation_name: 'Welcome series', unsubscribe_group_id: fresh.groupId }),
      });
      expect(created).toEqual({ status: 200, body: { status: 'success', message: { utr: expect.stringMatching(uuidPattern) } } });
      const utr = (created.body.message as { utr: string }).utr;
      const details = await call(fresh.keys, 'GET', 'automations/details', { query: { utr } });
      expect(details).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            automation: {
              id: 1,
              user_id: fresh.accountId,
              automation_for: fresh.contactTypeId,
              automation_for_table: 'contacts_',
              automation_name: 'Welcome series',
              exit_criteria: 0,
              unsubscribe_group_id: String(fresh.groupId),
              automation_type: 1,
              utr,
              status: 0,
              live_at: null,
              total_triggered: 0,
              total_delivered: 0,
              total_unique_opens: 0,
              total_opens: 0,
              total_bounces: 0,
              total_unsubscribe: 0,
              deleted_at: null,
              created_at: expect.stringMatching(isoPattern),
              updated_at: expect.stringMatching(isoPattern),
            },
          },
        },
      });
      expect(Object.keys((details.body.message as { automation: object }).automation)).toEqual(specFieldOrder);
    });

    it('creates a custom automation on a segment, with exit criteria 1', async () => {
      const utr = await createAutomation(world, { type: 'custom', automation_for: `segments_${world.segmentId}`, exit_criteria: 1 });
      expect(await detailsOf(world, utr)).toMatchObject({ automation_type: 2, automation_for: world.segmentId, automation_for_table: 'segments_', exit_criteria: 1 });
    });

    it('stores no target and no name when they are not given', async () => {
      const utr = await createAutomation(world, { automation_for: '', automation_name: '' });
      expect(await detailsOf(world, utr)).toMatchObject({ automation_for: null, automation_for_table: null, automation_name: null });
    });

    it('lists each missing required field', async () => {
      const result = await call(world.keys, 'POST', 'automations/create', { body: multipart({}) });
      expect(result).toEqual({
        status: 422,
        body: { status: 'failed', errors: { type: ['The type field is required.'], unsubscribe_group_id: ['The unsubscribe group id field is required.'] } },
      });
    });

    it.each([
      ['type', { type: 'drip' }, 'The selected type is invalid.'],
      ['automation_for', { automation_for: 'lists_1' }, 'The selected automation for is invalid.'],
      ['automation_for', { automation_for: 'contacts_999' }, 'The selected automation for is invalid.'],
      ['automation_for', { automation_for: 'segments_999' }, 'The selected automation for is invalid.'],
      ['automation_name', { automation_name: 'x'.repeat(256) }, 'The automation name field must not be greater than 255 characters.'],
      ['unsubscribe_group_id', { unsubscribe_group_id: 999 }, 'The selected unsubscribe group id is invalid.'],
      ['unsubscribe_group_id', { unsubscribe_group_id: 'abc' }, 'The unsubscribe group id field must be an integer.'],
      ['exit_criteria', { exit_criteria: 5 }, 'The selected exit criteria is invalid.'],
    ])('refuses a bad %s: %j', async (field, fields, message) => {
      const body = { type: 'welcome', automation_for: `contacts_${world.contactTypeId}`, unsubscribe_group_id: world.groupId, ...fields };
      const result = await call(world.keys, 'POST', 'automations/create', { body: multipart(body) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
    });

    it("refuses another account's contact type, segment and group", async () => {
      // The other account has a contact type, a segment and a group with id 2; this one has only id 1.
      const other = await automationWorld();
      await addContactType(other.accountId, 'Second');
      await addSegment(other.accountId, { contact_type_id: other.contactTypeId, segment_name: 'Second', conditions: [] });
      await addUnsubscribeGroup(other.accountId, { group_name: 'Second', description: '', is_display: 0 });
      const own = await automationWorld();
      const refused = async (automationFor: string) =>
        call(own.keys, 'POST', 'automations/create', { body: multipart({ type: 'welcome', automation_for: automationFor, unsubscribe_group_id: 2 }) });
      const invalid = ['The selected unsubscribe group id is invalid.'];
      expect(await refused('contacts_2')).toEqual({
        status: 422,
        body: { status: 'failed', errors: { automation_for: ['The selected automation for is invalid.'], unsubscribe_group_id: invalid } },
      });
      expect(await refused('segments_2')).toEqual({
        status: 422,
        body: { status: 'failed', errors: { automation_for: ['The selected automation for is invalid.'], unsubscribe_group_id: invalid } },
      });
      expect(await listOf(own)).toEqual([]);
    });

    it('answers Record Not Found for an unknown utr, a non-UUID, and another account’s automation', async () => {
      const utr = await createAutomation(world);
      expect(await call(world.keys, 'GET', 'automations/details', { query: { utr: unknownUtr } })).toEqual(NF);
      expect(await call(world.keys, 'GET', 'automations/details', { query: { utr: 'not-a-utr' } })).toEqual(NF);
      expect(await call(stranger.keys, 'GET', 'automations/details', { query: { utr } })).toEqual(NF);
    });

    it('needs the utr', async () => {
      const result = await call(world.keys, 'GET', 'automations/details');
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
    });
  });

  describe('automations (list)', () => {
    it('lists in id order with automation_schedule_count, and shows one account nothing of another', async () => {
      const fresh = await automationWorld();
      const first = await createAutomation(fresh, { automation_name: 'First' });
      const second = await createAutomation(fresh, { automation_name: 'Second' });
      await addStep(fresh, second);
      await addStep(fresh, second, { subject: 'Second mail' });
      const list = await call(fresh.keys, 'GET', 'automations');
      expect(list.status).toBe(200);
      const automations = (list.body.message as { automations: Record<string, unknown>[] }).automations;
      expect(automations.map((automation) => [automation.utr, automation.automation_schedule_count])).toEqual([
        [first, 0],
        [second, 2],
      ]);
      expect(Object.keys(automations[0] as object)).toEqual([...specFieldOrder, 'automation_schedule_count']);
      expect(JSON.stringify(await listOf(stranger))).not.toContain(first);
    });

    it('answers an empty list for a new account', async () => {
      const fresh = await automationWorld();
      expect(await call(fresh.keys, 'GET', 'automations')).toEqual({ status: 200, body: { status: 'success', message: { automations: [], next_cursor: null } } });
    });
  });

  describe('automations/set-live and pause', () => {
    afterEach(() => resetClock());

    it('sets a draft live with live_at, pauses it (status 2), and resumes it', async () => {
      const utr = await createAutomation(world);
      setClock(() => new Date('2031-02-03T04:05:06.789Z'));
      const live = await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
      expect(live).toEqual({ status: 200, body: { status: 'success', message: 'Automation has been set live' } });
      expect(await detailsOf(world, utr)).toMatchObject({ status: 1, live_at: '2031-02-03 04:05:06' });

      const paused = await call(world.keys, 'GET', 'automations/pause', { query: { utr } });
      expect(paused).toEqual({ status: 200, body: { status: 'success', message: 'Automation Paused Successfully' } });
      expect(await detailsOf(world, utr)).toMatchObject({ status: 2 });

      setClock(() => new Date('2031-02-04T00:00:00.000Z'));
      expect((await call(world.keys, 'GET', 'automations/set-live', { query: { utr } })).status).toBe(200);
      expect(await detailsOf(world, utr)).toMatchObject({ status: 1, live_at: '2031-02-04 00:00:00' });
    });

    it('answers success again for an automation already live, keeping its live_at', async () => {
      const utr = await createAutomation(world);
      setClock(() => new Date('2031-05-06T07:08:09.000Z'));
      await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
      setClock(() => new Date('2031-06-01T00:00:00.000Z'));
      const again = await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
      expect(again).toEqual({ status: 200, body: { status: 'success', message: 'Automation has been set live' } });
      expect(await detailsOf(world, utr)).toMatchObject({ status: 1, live_at: '2031-05-06 07:08:09' });
    });

    it("refuses to go live once the automation's group no longer exists, and stays a draft", async () => {
      const fresh = await automationWorld();
      const utr = await createAutomation(fresh);
      // There is no group delete operation; remove the group's item as a delete would.
      await deleteExistingItem(unsubscribeGroupKey(fresh.accountId, fresh.groupId));
      const result = await call(fresh.keys, 'GET', 'automations/set-live', { query: { utr } });
      expect(result).toEqual({ status: 409, body: { status: 'failed', errors: 'Unsubscribe group require to live automation' } });
      expect(await detailsOf(fresh, utr)).toMatchObject({ status: 0, live_at: null });
    });

    it('pauses only a live automation: a draft, a paused one, an unknown utr answer Record not found', async () => {
      const utr = await createAutomation(world);
      expect(await call(world.keys, 'GET', 'automations/pause', { query: { utr } })).toEqual(nf);
      await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
      await call(world.keys, 'GET', 'automations/pause', { query: { utr } });
      expect(await call(world.keys, 'GET', 'automations/pause', { query: { utr } })).toEqual(nf);
      expect(await call(world.keys, 'GET', 'automations/pause', { query: { utr: unknownUtr } })).toEqual(nf);
      expect(await detailsOf(world, utr)).toMatchObject({ status: 2 });
    });

    it("can neither set live nor pause another account's automation", async () => {
      const utr = await createAutomation(world);
      expect(await call(stranger.keys, 'GET', 'automations/set-live', { query: { utr } })).toEqual(nf);
      await call(world.keys, 'GET', 'automations/set-live', { query: { utr } });
      expect(await call(stranger.keys, 'GET', 'automations/pause', { query: { utr } })).toEqual(nf);
      expect(await detailsOf(world, utr)).toMatchObject({ status: 1 });
    });

    it('answers Record not found to set-live of an unknown utr, and needs the utr', async () => {
      expect(await call(world.keys, 'GET', 'automations/set-live', { query: { utr: unknownUtr } })).toEqual(nf);
      expect(await call(world.keys, 'GET', 'automations/set-live')).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
      expect(await call(world.keys, 'GET', 'automations/pause')).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
    });
  });

  describe('automations/duplicate', () => {
    it('answers the new utr of a draft copy with its steps copied and statistics zeroed', async () => {
      const fresh = await automationWorld();
      const utr = await createAutomation(fresh, { automation_name: 'Original' });
      await addStep(fresh, utr, { subject: 'One' });
      await addStep(fresh, utr, { subject: 'Two', waiting_period: 2, waiting_type: 'days' });
      await call(fresh.keys, 'GET', 'automations/set-live', { query: { utr } });
      await addAutomationTotals(fresh.accountId, utr, { total_triggered: 3, total_opens: 2 });

      const result = await call(fresh.keys, 'GET', 'automations/duplicate', { query: { utr } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: { utr: expect.stringMatching(uuidPattern) } } });
      const copyUtr = (result.body.message as { utr: string }).utr;
      expect(copyUtr).not.toBe(utr);

      const original = await detailsOf(fresh, utr);
      const copy = await detailsOf(fresh, copyUtr);
      expect(original).toMatchObject({ status: 1, total_triggered: 3, total_opens: 2 });
      expect(copy).toMatchObject({ id: 2, automation_name: 'Original', status: 0, live_at: null, total_triggered: 0, total_opens: 0, automation_type: 1 });
      const [originalSteps, copiedSteps] = [await schedulesOf(fresh, utr), await schedulesOf(fresh, copyUtr)];
      expect(copiedSteps.map((step) => [step.subject, step.waiting_period, step.waiting_type, step.automation_id])).toEqual([
        ['One', 0, 'instantly', 2],
        ['Two', 2, 'days', 2],
      ]);
      expect(copiedSteps.map((step) => step.utr)).not.toContain(originalSteps[0]?.utr);
      expect(copiedSteps.map((step) => step.id)).toEqual([3, 4]);
      expect((await listOf(fresh)).map((automation) => automation.automation_schedule_count)).toEqual([2, 2]);
    });

    it('answers Record not found for an unknown utr and for another account’s automation', async () => {
      const utr = await createAutomation(world);
      expect(await call(world.keys, 'GET', 'automations/duplicate', { query: { utr: unknownUtr } })).toEqual(nf);
      expect(await call(stranger.keys, 'GET', 'automations/duplicate', { query: { utr } })).toEqual(nf);
    });
  });

  describe('automations/delete', () => {
    it('deletes the automation and its steps', async () => {
      const fresh = await automationWorld();
      const utr = await createAutomation(fresh);
      await addStep(fresh, utr);
      const [step] = await schedulesOf(fresh, utr);
      const result = await call(fresh.keys, 'DELETE', 'automations/delete', { query: { utr } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect(await call(fresh.keys, 'GET', 'automations/details', { query: { utr } })).toEqual(NF);
      expect(await call(fresh.keys, 'GET', 'automations/schedule', { query: { utr } })).toEqual(nf);
      expect(await call(fresh.keys, 'DELETE', 'automations/schedule/delete', { query: { utr: String(step?.utr) } })).toEqual(nf);
      expect(await listOf(fresh)).toEqual([]);
    });

    it('answers Record not found for an unknown utr, a second delete and another account’s automation', async () => {
      const utr = await createAutomation(world);
      expect(await call(stranger.keys, 'DELETE', 'automations/delete', { query: { utr } })).toEqual(nf);
      expect((await call(world.keys, 'DELETE', 'automations/delete', { query: { utr } })).status).toBe(200);
      expect(await call(world.keys, 'DELETE', 'automations/delete', { query: { utr } })).toEqual(nf);
      expect(await call(world.keys, 'DELETE', 'automations/delete')).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
    });
  });

  describe('automations/bulk-delete', () => {
    it('deletes by integer id and by utr, steps included', async () => {
      const fresh = await automationWorld();
      const first = await createAutomation(fresh);
      const second = await createAutomation(fresh);
      const kept = await createAutomation(fresh);
      await addStep(fresh, second);
      const result = await call(fresh.keys, 'POST', 'automations/bulk-delete', { body: urlencoded({ strIds: [1, second] }) });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect((await listOf(fresh)).map((automation) => automation.utr)).toEqual([kept]);
      expect(await call(fresh.keys, 'GET', 'automations/schedule', { query: { utr: second } })).toEqual(nf);
      expect(first).not.toBe(kept);
    });

    it('deletes nothing when any entry is unknown or belongs to another account', async () => {
      const fresh = await automationWorld();
      const mine = await createAutomation(fresh);
      const theirs = await createAutomation(stranger);
      expect(await call(fresh.keys, 'POST', 'automations/bulk-delete', { body: urlencoded({ strIds: [mine, 999] }) })).toEqual(nf);
      expect(await call(fresh.keys, 'POST', 'automations/bulk-delete', { body: urlencoded({ strIds: [mine, theirs] }) })).toEqual(nf);
      expect((await listOf(fresh)).map((automation) => automation.utr)).toEqual([mine]);
      expect(await detailsOf(stranger, theirs)).toMatchObject({ utr: theirs });
    });

    it('needs strIds', async () => {
      const result = await call(world.keys, 'POST', 'automations/bulk-delete', { body: urlencoded({}) });
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { strIds: ['The str ids field is required.'] } } });
    });
  });

  describe('statistics', () => {
    it('adds to the totals atomically and leaves a missing automation uncreated', async () => {
      const fresh = await automationWorld();
      const utr = await createAutomation(fresh);
      await Promise.all([
        addAutomationTotals(fresh.accountId, utr, { total_delivered: 1, total_unique_opens: 1 }),
        addAutomationTotals(fresh.accountId, utr, { total_delivered: 1, total_bounces: 1, total_unsubscribe: 1 }),
      ]);
      expect(await detailsOf(fresh, utr)).toMatchObject({ total_delivered: 2, total_unique_opens: 1, total_bounces: 1, total_unsubscribe: 1, total_triggered: 0 });
      expect(await addAutomationTotals(fresh.accountId, unknownUtr, { total_delivered: 1 })).toBe(false);
      expect(await call(fresh.keys, 'GET', 'automations/details', { query: { utr: unknownUtr } })).toEqual(NF);
    });
  });

  describe('credentials', () => {
    it.each([
      ['GET', 'automations'],
      ['POST', 'automations/create'],
      ['GET', 'automations/set-live'],
      ['POST', 'automations/schedule/create'],
    ])('answers 401 when both headers are missing (%s %s)', async (method, path) => {
      const result = await call(undefined, method, path);
      expect(result).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('refuses a wrong secret', async () => {
      const result = await call({ public_key: world.keys.public_key, secret_key: stranger.keys.secret_key }, 'GET', 'automations');
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
    });
  });
});

describe('automations paging', () => {
  it('pages automations in id order, and refuses a tampered or foreign cursor', async () => {
    const [own, other] = [await automationWorld(), await automationWorld()];
    for (let i = 1; i <= 5; i++) await createAutomation(own, { automation_name: `Automation ${i}` });
    for (let i = 1; i <= 2; i++) await createAutomation(other);
    const list: ListCall = (keys, query) => call(keys, 'GET', 'automations', { query });
    await expectFiveItemsToPage({ call: list, listName: 'automations', owner: own.keys, foreign: { call: list, keys: other.keys } });
    expect((await listOf(own)).map((automation) => automation.id)).toEqual([1, 2, 3, 4, 5]);
  });

  it("pages an automation's schedules, and refuses another automation's cursor", async () => {
    const own = await automationWorld();
    const [paged, otherUtr] = [await createAutomation(own), await createAutomation(own)];
    for (let i = 1; i <= 5; i++) await addStep(own, paged, { subject: `Step ${i}` });
    for (let i = 1; i <= 2; i++) await addStep(own, otherUtr, { subject: `Other ${i}` });
    const schedules = (utr: string): ListCall => (keys, query) => call(keys, 'GET', 'automations/schedule', { query: { utr, ...query } });
    await expectFiveItemsToPage({ call: schedules(paged), listName: 'automation_schedules', owner: own.keys, foreign: { call: schedules(otherUtr), keys: own.keys } });
  });
});
