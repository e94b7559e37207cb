// Body parsing in each encoding, and 400s for what cannot be read.
import { bodyLimits, parseBody } from '../../shared/http/body';
import { formLimits } from '../../shared/http/form-keys';
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

describe('parseBody never cuts a body silently', () => {
  /** A multipart body from raw parts, so names and counts are exactly as written. */
  function rawMultipart(parts: { name: string; value?: string; filename?: string }[]): { body: Buffer; contentType: string } {
    const boundary = 'XlimitsX';
    const text = parts
      .map(({ name, value = '', filename }) =>
        filename === undefined
          ? `--${boundary}\r\nContent-Disposition: form-data; name="${name}"\r\n\r\n${value}\r\n`
          : `--${boundary}\r\nContent-Disposition: form-data; name="${name}"; filename="${filename}"\r\nContent-Type: text/plain\r\n\r\n${value}\r\n`,
      )
      .join('');
    return { body: Buffer.from(`${text}--${boundary}--\r\n`), contentType: `multipart/form-data; boundary=${boundary}` };
  }

  async function refusal(body: { body: Buffer; contentType: string }): Promise<unknown> {
    return parseBody(body.body, body.contentType).then(
      () => 'accepted',
      (error: unknown) => error,
    );
  }

  it.each([
    ['too many fields', rawMultipart(Array.from({ length: formLimits.fields + 1 }, (_, i) => ({ name: `f${i}`, value: 'x' }))), `The body has more than ${formLimits.fields} fields.`],
    ['a field name longer than the limit', rawMultipart([{ name: 'n'.repeat(formLimits.nameBytes + 1), value: 'x' }]), `A field name is longer than ${formLimits.nameBytes} bytes.`],
    ['a field value larger than the limit', rawMultipart([{ name: 'name', value: 'v'.repeat(formLimits.valueBytes + 1) }]), 'The value of a field is larger than 1 MB.'],
    ['too many files', rawMultipart(Array.from({ length: bodyLimits.files + 1 }, (_, i) => ({ name: `file${i}`, filename: `f${i}.csv`, value: 'a' }))), `The body has more than ${bodyLimits.files} files.`],
  ])('refuses %s with a 413', async (_case, body, message) => {
    expect(await refusal(body)).toMatchObject({ statusCode: 413, errors: message });
  });

  it('accepts a multipart body right at each limit', async () => {
    const atLimit = rawMultipart([
      { name: 'n'.repeat(formLimits.nameBytes), value: 'x' },
      { name: 'name', value: 'v'.repeat(formLimits.valueBytes) },
      ...Array.from({ length: bodyLimits.files }, (_, i) => ({ name: `file${i}`, filename: `f${i}.csv`, value: 'a' })),
    ]);
    const parsed = await parseBody(atLimit.body, atLimit.contentType);
    expect(parsed.files).toHaveLength(bodyLimits.files);
    expect((parsed.fields.name as string).length).toBe(formLimits.valueBytes);
  });

  it('refuses a file larger than the limit with a 413', async () => {
    const big = rawMultipart([{ name: 'file', filename: 'big.csv', value: 'a'.repeat(bodyLimits.fileBytes + 1) }]);
    expect(await refusal(big)).toMatchObject({ statusCode: 413, errors: 'An uploaded file is larger than 4.4 MB.' });
  });

  it('applies the same field limits to urlencoded bodies', async () => {
    const many = Array.from({ length: formLimits.fields + 1 }, (_, i) => `f${i}=x`).join('&');
    expect(await refusal({ body: Buffer.from(many), contentType: 'application/x-www-form-urlencoded' })).toMatchObject({ statusCode: 413 });
    expect(await refusal({ body: Buffer.from('a[01]=x'), contentType: 'application/x-www-form-urlencoded' })).toBe('accepted');
  });

  it('refuses multipart keys that fold badly with an error, not a crash', async () => {
    expect(await refusal(rawMultipart([{ name: `a${'[]'.repeat(formLimits.depth + 1)}`, value: 'x' }]))).toMatchObject({ statusCode: 400 });
    expect((await parseBody(rawMultipart([{ name: 'a[01]', value: 'x' }]).body, 'multipart/form-data; boundary=XlimitsX')).fields).toEqual({ a: { '01': 'x' } });
  });

  it('refuses JSON nested deeper than the limit with a 400', async () => {
    const nested = (depth: number) => Buffer.from(`{"a":${'['.repeat(depth - 1)}${']'.repeat(depth - 1)}}`);
    expect((await parseBody(nested(bodyLimits.jsonDepth), 'application/json')).fields).toHaveProperty('a');
    expect(await refusal({ body: nested(bodyLimits.jsonDepth + 1), contentType: 'application/json' })).toMatchObject({
      statusCode: 400,
      errors: `The JSON body is nested more than ${bodyLimits.jsonDepth} levels deep.`,
    });
    expect(await refusal({ body: nested(200_000), contentType: 'application/json' })).toMatchObject({ statusCode: 400 });
  });
});

describe('parseBody with nameless multipart parts', () => {
  it('reads a part without a name as the empty key, as urlencoded `=x` is, instead of failing', async () => {
    const body = Buffer.from('--B\r\nContent-Disposition: form-data; name=""\r\n\r\nx\r\n--B\r\nContent-Disposition: form-data\r\n\r\ny\r\n--B--\r\n');
    expect((await parseBody(body, 'multipart/form-data; boundary=B')).fields).toEqual({ '': 'y' });
  });
});
