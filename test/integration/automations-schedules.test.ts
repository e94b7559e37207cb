// Automation schedules (steps) through the Lambda handler on DynamoDB Local: list, create, delete,
// and the public design and preview links each step carries.
import { handler as templatesHandler } from '../../functions/templates/handler';
import { addSender } from '../../shared/senders/repository';
import { findDesignTemplate } from '../../shared/templates/repository';
import { renderDesignHtml } from '../../shared/templates/design';
import { libraryDesigns } from '../../shared/templates/designs';
import { handler } from '../../functions/automations/handler';
import {
  addStep,
  automationWorld,
  call,
  createAutomation,
  isoPattern,
  listOf,
  schedulesOf,
  stepFields,
  uuidPattern,
  type AutomationWorld,
} from '../support/automations';
import { apiEvent, multipart } from '../support/events';
import { place } from '../support/senders';

const nf = { status: 404, body: { status: 'failed', errors: 'Record not found' } };
const unknownUtr = '00000000-0000-4000-8000-000000000000';
const baseUrl = 'http://localhost:3000/api/';

/** GET a public link of a step, without credentials, through the handler that owns its route. */
async function open(url: string) {
  expect(url.startsWith(baseUrl)).toBe(true);
  const path = url.slice(baseUrl.length);
  const owner = path.startsWith('assets/') ? templatesHandler : handler;
  return owner(apiEvent({ method: 'GET', path }));
}

async function createStep(world: AutomationWorld, fields: Record<string, string | number>) {
  return call(world.keys, 'POST', 'automations/schedule/create', { body: multipart(fields) });
}

describe('automation schedules', () => {
  let world: AutomationWorld;
  let stranger: AutomationWorld;
  let automationUtr: string;

  beforeAll(async () => {
    world = await automationWorld();
    stranger = await automationWorld();
    automationUtr = await createAutomation(world);
  });

  describe('automations/schedule/create and automations/schedule', () => {
    it('adds steps in order and lists them with every spec field and their links', async () => {
      const fresh = await automationWorld();
      const utr = await createAutomation(fresh);
      const added = await createStep(fresh, stepFields(fresh, utr, { subject: 'Welcome aboard' }));
      expect(added).toEqual({ status: 200, body: { status: 'success', message: 'Schedule Added' } });
      await addStep(fresh, utr, { subject: 'A day later', waiting_period: 1, waiting_type: 'days', template_html: '<p>Hi ((first_name))</p>' });

      const result = await call(fresh.keys, 'GET', 'automations/schedule', { query: { utr } });
      expect(result.status).toBe(200);
      const steps = (result.body.message as { automation_schedules: Record<string, unknown>[] }).automation_schedules;
      expect(steps[0]).toEqual({
        id: 1,
        user_id: fresh.accountId,
        automation_id: 1,
        sender_id: fresh.senderId,
        template_id: 2,
        subject: 'Welcome aboard',
        waiting_period: 0,
        waiting_type: 'instantly',
        utr: expect.stringMatching(uuidPattern),
        preview_img: 'newsletter.svg',
        template_json: null,
        template_html: null,
        created_at: expect.stringMatching(isoPattern),
        updated_at: expect.stringMatching(isoPattern),
        design_url: expect.stringMatching(/^http:\/\/localhost:3000\/api\/automations\/schedule\/design\/[\w.-]+$/),
        image: expect.stringMatching(/^http:\/\/localhost:3000\/api\/automations\/schedule\/image\/[\w.-]+$/),
      });
      expect(Object.keys(steps[0] as object)).toEqual([
        'id', 'user_id', 'automation_id', 'sender_id', 'template_id', 'subject', 'waiting_period', 'waiting_type', 'utr',
        'preview_img', 'template_json', 'template_html', 'created_at', 'updated_at', 'design_url', 'image',
      ]);
      expect(steps[1]).toMatchObject({ id: 2, subject: 'A day later', waiting_period: 1, waiting_type: 'days', template_html: '<p>Hi ((first_name))</p>', template_json: null });
      expect((await listOf(fresh))[0]).toMatchObject({ utr, automation_schedule_count: 2 });
    });

    it('lists each missing required field', async () => {
      const result = await createStep(world, {});
      expect(result).toEqual({
        status: 422,
        body: {
          status: 'failed',
          errors: {
            utr: ['The utr field is required.'],
            sender_id: ['The sender id field is required.'],
            subject: ['The subject field is required.'],
            waiting_period: ['The waiting period field is required.'],
            waiting_type: ['The waiting type field is required.'],
            template_id: ['The template id field is required.'],
            preview_img: ['The preview img field is required.'],
          },
        },
      });
    });

    it.each([
      ['utr', { utr: unknownUtr }, 'The selected utr is invalid.'],
      ['utr', { utr: 'not-a-utr' }, 'The selected utr is invalid.'],
      ['sender_id', { sender_id: 999 }, 'The selected sender id is invalid.'],
      ['sender_id', { sender_id: 'one' }, 'The sender id field must be an integer.'],
      ['waiting_period', { waiting_period: -1 }, 'The waiting period field must be at least 0.'],
      ['waiting_period', { waiting_period: '1.5' }, 'The waiting period field must be an integer.'],
      ['waiting_type', { waiting_type: 'weeks' }, 'The selected waiting type is invalid.'],
      ['template_id', { template_id: 999 }, 'The selected template id is invalid.'],
      ['template_json', { template_json: '{"blocks": [' }, 'The template json field must be a valid JSON string.'],
      ['template_html', { template_json: '{}', template_html: '<p>both</p>' }, 'The template html field prohibits template json from being present.'],
    ])('refuses a bad %s: %j', async (field, fields, message) => {
      const result = await createStep(world, stepFields(world, automationUtr, fields));
      expect(result).toEqual({ status: 422, body: { status: 'failed', errors: { [field]: [message] } } });
    });

    it("refuses another account's automation and sender", async () => {
      const theirs = await createAutomation(stranger);
      const foreignAutomation = await createStep(world, stepFields(world, theirs));
      expect(foreignAutomation).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The selected utr is invalid.'] } } });
      // The stranger has a second sender; this account has only one.
      const second = await addSender(stranger.accountId, {
        from_name: 'Other', from_email: 'other@example.com', reply_to_email: 'other@example.com', country_id: place.usa,
        state_id: null, city_id: null, zip_code: null, company_address: '2 Side Street', company_address2: null, nickname: 'Other',
      });
      const foreignSender = await createStep(world, stepFields(world, automationUtr, { sender_id: second.id }));
      expect(foreignSender).toEqual({ status: 422, body: { status: 'failed', errors: { sender_id: ['The selected sender id is invalid.'] } } });
      expect(await schedulesOf(stranger, theirs)).toEqual([]);
    });

    it('answers Record not found for the steps of an unknown or foreign automation, and needs the utr', async () => {
      expect(await call(world.keys, 'GET', 'automations/schedule', { query: { utr: unknownUtr } })).toEqual(nf);
      expect(await call(stranger.keys, 'GET', 'automations/schedule', { query: { utr: automationUtr } })).toEqual(nf);
      expect(await call(world.keys, 'GET', 'automations/schedule')).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
    });
  });

  describe('automations/schedule/delete', () => {
    it('deletes one step and lowers the count', async () => {
      const fresh = await automationWorld();
      const utr = await createAutomation(fresh);
      await addStep(fresh, utr, { subject: 'First' });
      await addStep(fresh, utr, { subject: 'Second' });
      const [first] = await schedulesOf(fresh, utr);
      const result = await call(fresh.keys, 'DELETE', 'automations/schedule/delete', { query: { utr: String(first?.utr) } });
      expect(result).toEqual({ status: 200, body: { status: 'success', message: 'Deleted Successfully' } });
      expect((await schedulesOf(fresh, utr)).map((step) => step.subject)).toEqual(['Second']);
      expect((await listOf(fresh))[0]).toMatchObject({ automation_schedule_count: 1 });
      expect(await call(fresh.keys, 'DELETE', 'automations/schedule/delete', { query: { utr: String(first?.utr) } })).toEqual(nf);
    });

    it("answers Record not found for an unknown step and another account's step, and needs the utr", async () => {
      const fresh = await automationWorld();
      const utr = await createAutomation(fresh);
      await addStep(fresh, utr);
      const [step] = await schedulesOf(fresh, utr);
      expect(await call(stranger.keys, 'DELETE', 'automations/schedule/delete', { query: { utr: String(step?.utr) } })).toEqual(nf);
      expect(await call(fresh.keys, 'DELETE', 'automations/schedule/delete', { query: { utr: unknownUtr } })).toEqual(nf);
      expect(await call(fresh.keys, 'DELETE', 'automations/schedule/delete')).toEqual({ status: 422, body: { status: 'failed', errors: { utr: ['The utr field is required.'] } } });
      expect(await schedulesOf(fresh, utr)).toHaveLength(1);
    });
  });

  describe('design_url and image', () => {
    async function stepWith(fields: Record<string, string | number>) {
      const fresh = await automationWorld();
      const utr = await createAutomation(fresh);
      await addStep(fresh, utr, fields);
      const [step] = await schedulesOf(fresh, utr);
      return { fresh, step: step as { utr: string; design_url: string; image: string } };
    }

    it("serves the step's own HTML, sandboxed, without credentials", async () => {
      const { step } = await stepWith({ template_id: 1, template_html: '<h1>Hello ((first_name))</h1>' });
      const page = await open(step.design_url);
      expect(page.statusCode).toBe(200);
      expect(page.headers?.['content-type']).toBe('text/html; charset=utf-8');
      expect(page.headers?.['content-security-policy']).toContain('sandbox');
      expect(page.body).toBe('<h1>Hello ((first_name))</h1>');
    });

    it('renders a JSON design, and falls back to the library template', async () => {
      const design = libraryDesigns[2]?.design;
      const fromJson = await stepWith({ template_id: 1, subject: 'Designed', template_json: JSON.stringify(design) });
      expect((await open(fromJson.step.design_url)).body).toBe(renderDesignHtml(design as NonNullable<typeof design>, 'Designed'));
      const fromLibrary = await stepWith({ template_id: 4 });
      expect((await open(fromLibrary.step.design_url)).body).toBe(findDesignTemplate(4)?.html_code);
    });

    it("redirects the image to the template's preview, which is served", async () => {
      const { step } = await stepWith({ template_id: 2, preview_img: 'newsletter.svg' });
      const redirect = await open(step.image);
      expect(redirect.statusCode).toBe(302);
      expect(redirect.headers?.location).toBe(`${baseUrl}assets/previews/newsletter.svg`);
      const image = await open(String(redirect.headers?.location));
      expect(image.statusCode).toBe(200);
      expect(image.headers?.['content-type']).toBe('image/svg+xml; charset=utf-8');
      expect(image.body).toContain('<svg');
      const unknownPreview = await stepWith({ template_id: 3, preview_img: 'https://elsewhere.example/x.png' });
      expect((await open(unknownPreview.step.image)).headers?.location).toBe(`${baseUrl}assets/previews/${findDesignTemplate(3)?.preview_image}`);
    });

    it('answers Record Not Found for a tampered link and for a deleted step', async () => {
      const { fresh, step } = await stepWith({});
      const tampered = step.design_url.replace(/.$/, (last) => (last === 'A' ? 'B' : 'A'));
      expect((await open(tampered)).statusCode).toBe(404);
      expect((await open(`${baseUrl}automations/schedule/design/not-a-token`)).statusCode).toBe(404);
      await call(fresh.keys, 'DELETE', 'automations/schedule/delete', { query: { utr: step.utr } });
      const gone = await open(step.design_url);
      expect(gone.statusCode).toBe(404);
      expect(JSON.parse(String(gone.body))).toEqual({ status: 'failed', errors: 'Record Not Found' });
      expect((await open(step.image)).statusCode).toBe(404);
    });
  });
});
