// Body parsing in each encoding, and 400s for what cannot be read.
import { parseBody } from '../../shared/http/body';
import { BadRequestError } from '../../shared/http/errors';
import { multipart, urlencoded } from '../support/events';

describe('parseBody', () => {
  it('reads multipart fields, indexed keys and files', async () => {
    const body = multipart({ 'recipient_id[0]': 'contacts_1', 'recipient_id[1]': 'segments_2', name: 'Zoë', file: { filename: 'list.csv', content: 'email\na@b.co\n' } });
    const parsed = await parseBody(body.body, body.contentType);
    expect(parsed.fields).toEqual({ recipient_id: ['contacts_1', 'segments_2'], name: 'Zoë' });
    expect(parsed.files).toHaveLength(1);
    expect(parsed.files[0]).toMatchObject({ field: 'file', filename: 'list.csv', mimeType: 'text/csv' });
    expect(parsed.files[0]?.content.toString()).toBe('email\na@b.co\n');
  });

  it('reads urlencoded bulk-delete ids', async () => {
    const body = urlencoded({ strIds: [3, 1, 2] });
    expect(await parseBody(body.body, body.contentType)).toEqual({ fields: { strIds: ['3', '1', '2'] }, files: [] });
  });

  it('reads a JSON object', async () => {
    expect((await parseBody(Buffer.from('{"name":"x","ids":[1]}'), 'application/json; charset=utf-8')).fields).toEqual({ name: 'x', ids: [1] });
  });

  it('treats an empty body as no fields', async () => {
    expect(await parseBody(Buffer.alloc(0), undefined)).toEqual({ fields: {}, files: [] });
  });

  it.each([
    ['{"a":', 'application/json', 'Malformed JSON body.'],
    ['[1,2]', 'application/json', 'The JSON body must be an object.'],
    ['hello', 'text/plain', 'Unsupported content type text/plain.'],
    ['hello', undefined, 'A request body needs a Content-Type header.'],
    ['not multipart', 'multipart/form-data', 'Malformed multipart body.'],
  ])('refuses %p as %p', async (text, type, message) => {
    const attempt = parseBody(Buffer.from(text), type);
    await expect(attempt).rejects.toBeInstanceOf(BadRequestError);
    await expect(attempt).rejects.toMatchObject({ statusCode: 400, errors: message });
  });
});
