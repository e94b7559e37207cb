// Templates and dynamic content through the Lambda handler: the library, the placeholder names and the preview images.
import { handler } from '../../functions/templates/handler';
import { listDesignTemplates } from '../../shared/templates/repository';
import { newAccount } from '../support/accounts';
import { apiEvent, authHeaders, parsed, type Keys } from '../support/events';

async function call(keys: Keys | undefined, path: string, headers: Record<string, string> = {}) {
  return parsed(await handler(apiEvent({ method: 'GET', path, headers: { ...(keys ? authHeaders(keys) : {}), ...headers } })));
}

function preview(file: string, headers: Record<string, string> = {}) {
  return handler(apiEvent({ method: 'GET', path: `assets/previews/${file}`, headers }));
}

describe('templates and dynamic content', () => {
  let owner: Keys;

  beforeAll(async () => {
    owner = await newAccount();
  });

  describe('get-design/template', () => {
    it('answers the library with the blank template first, each with the spec fields', async () => {
      const result = await call(owner, 'get-design/template');
      expect(result.status).toBe(200);
      const templates = (result.body.message as { templates: Record<string, unknown>[] }).templates;
      expect(result.body).toEqual({ status: 'success', message: { templates: expect.any(Array) } });
      expect(templates.map((template) => template.id)).toEqual([1, 2, 3, 4, 5, 6, 7]);
      expect(templates.map((template) => template.template_name)).toEqual([
        'Blank',
        'Monthly Newsletter',
        'Welcome',
        'Seasonal Sale',
        'Product Announcement',
        'Event Invitation',
        'Order Confirmation',
      ]);
      expect(templates[0]).toEqual({
        id: 1,
        template_name: 'Blank',
        preview_image: 'blank.svg',
        json_code: expect.stringMatching(/^\{"version":1,/),
        html_code: expect.stringMatching(/^<!DOCTYPE html>/),
        is_blank: 1,
        created_at: null,
        updated_at: null,
      });
      expect(templates.slice(1).every((template) => template.is_blank === 0)).toBe(true);
      expect(templates[1]).toMatchObject({ preview_image: 'newsletter.svg', html_code: expect.stringContaining('((first_name))') });
    });

    it('answers every account the same library', async () => {
      const other = await newAccount();
      expect(await call(other, 'get-design/template')).toEqual(await call(owner, 'get-design/template'));
      expect(((await call(other, 'get-design/template')).body.message as { templates: unknown[] }).templates).toEqual(
        JSON.parse(JSON.stringify(listDesignTemplates())),
      );
    });
  });

  describe('get-dynamic/content', () => {
    it("answers the spec's 21 names in the spec's order", async () => {
      expect(await call(owner, 'get-dynamic/content')).toEqual({
        status: 200,
        body: {
          status: 'success',
          message: {
            contents: [
              'first_name', 'last_name', 'email', 'alt_email', 'country', 'state', 'city', 'address_line1', 'address_line2',
              'state_province_region', 'postal_code', 'full_name', 'father_name', 'designation', 'age', 'company_name',
              'birth_date', 'join_date', 'sender_name', 'sender_address', 'unsubscribe_preferences',
            ],
          },
        },
      });
    });
  });

  describe('assets/previews/{file}', () => {
    it("serves every template's preview image as SVG, without credentials, cacheable", async () => {
      for (const template of listDesignTemplates()) {
        const result = await preview(template.preview_image);
        expect(result.statusCode).toBe(200);
        expect(result.headers).toMatchObject({
          'content-type': 'image/svg+xml; charset=utf-8',
          'cache-control': 'public, max-age=86400',
          'x-content-type-options': 'nosniff',
          etag: expect.stringMatching(/^"[A-Za-z0-9_-]+"$/),
        });
        expect(result.body).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg" width="320" height="440"/);
        expect(result.body).toContain(`<title>${template.template_name}</title>`);
        expect(result.body).not.toMatch(/<script|on\w+=/i);
      }
    });

    it("draws each preview in its design's accent colour, so previews differ", async () => {
      const newsletter = (await preview('newsletter.svg')).body as string;
      const sale = (await preview('promotion.svg')).body as string;
      expect(newsletter).toContain('#1f6feb');
      expect(sale).toContain('#d9480f');
      expect(newsletter).not.toEqual(sale);
    });

    it('answers 304 when the client already holds the same version', async () => {
      const first = await preview('welcome.svg');
      const etag = first.headers?.etag as string;
      const again = await preview('welcome.svg', { 'if-none-match': etag });
      const weak = await preview('welcome.svg', { 'if-none-match': `"other", W/${etag}` });
      const changed = await preview('welcome.svg', { 'if-none-match': '"stale"' });
      expect(again.statusCode).toBe(304);
      expect(again.body).toBe('');
      expect(weak.statusCode).toBe(304);
      expect(changed.statusCode).toBe(200);
    });

    it.each(['missing.svg', 'newsletter.png', 'Newsletter.svg', '..%2F..%2Fpackage.json', '.svg', 'newsletter.svg.map'])(
      'answers Record Not Found for %j',
      async (file) => {
        const result = await preview(file);
        expect(result.statusCode).toBe(404);
        expect(result.headers?.['content-type']).toBe('application/json; charset=utf-8');
        expect(JSON.parse(result.body as string)).toEqual({ status: 'failed', errors: 'Record Not Found' });
      },
    );

    it('does not match a path that climbs out of the previews folder', async () => {
      const result = await handler(apiEvent({ method: 'GET', path: 'assets/previews/../../get-design/template' }));
      expect(result.statusCode).toBe(404);
      expect(result.body).not.toContain('html_code');
    });
  });

  describe('credentials', () => {
    it.each(['get-design/template', 'get-dynamic/content'])('answers 401 with both messages when both headers are missing (%s)', async (path) => {
      expect(await call(undefined, path)).toEqual({
        status: 401,
        body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'], SecretKey: ['The secret key field is required.'] } },
      });
    });

    it('names only the missing header', async () => {
      const result = await call(undefined, 'get-dynamic/content', { secretkey: owner.secret_key });
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: { PublicKey: ['The public key field is required.'] } } });
    });

    it('refuses a wrong secret', async () => {
      const result = await call({ public_key: owner.public_key, secret_key: 'sk_wrong' }, 'get-design/template');
      expect(result).toEqual({ status: 401, body: { status: 'failed', errors: 'Invalid credentials.' } });
    });
  });
});
