// Request bodies in the three encodings clients send: multipart/form-data (with files), urlencoded
// and JSON. Each yields the same `{fields, files}` shape; anything unreadable is a 400, anything past
// a limit a 413: a body is read whole or refused, never cut short.
import busboy from 'busboy';
import { BadRequestError, PayloadTooLargeError } from './errors';
import { foldFormPairs, formLimitMessages, formLimits, type FormFields } from './form-keys';
import { maxFileBytes, maxFileMegabytes } from './request-size';
import type { UploadedFile } from '../validation/field';

export type { UploadedFile };

export interface ParsedBody {
  fields: Record<string, unknown>;
  files: UploadedFile[];
}

/**
 * Upper bounds that keep one request from exhausting a Lambda's memory (form fields: see formLimits).
 * A file is as large as can reach a function at all (request-size.ts).
 */
export const bodyLimits = { files: 5, fileBytes: maxFileBytes, jsonDepth: 64 };

const bodyLimitMessages = {
  files: `The body has more than ${bodyLimits.files} files.`,
  fileBytes: `An uploaded file is larger than ${maxFileMegabytes} MB.`,
  jsonDepth: `The JSON body is nested more than ${bodyLimits.jsonDepth} levels deep.`,
};

// busboy stops at each limit and says so by an event or a flag; every one of them refuses the body.
// It flags a value or file that reaches its size limit, so those limits are one byte past ours.
const busboyLimits = {
  files: bodyLimits.files,
  fileSize: bodyLimits.fileBytes + 1,
  fields: formLimits.fields,
  parts: formLimits.fields + bodyLimits.files,
  fieldSize: formLimits.valueBytes + 1,
};

function parseMultipart(body: Buffer, contentType: string): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8', limits: busboyLimits });
    } catch {
      reject(new BadRequestError('Malformed multipart body.'));
      return;
    }
    const pairs: [string, string][] = [];
    const files: UploadedFile[] = [];
    let settled = false;
    const fail = (error: Error) => {
      if (settled) return;
      settled = true;
      reject(error);
    };
    parser.on('field', (name, value, info) => {
      if (info.valueTruncated) fail(new PayloadTooLargeError(formLimitMessages.value));
      // busboy names a part without a name (or with `name=""`) undefined: it is the empty key, as in urlencoded `=x`.
      else pairs.push([name ?? '', value]);
    });
    parser.on('file', (name, stream, info) => {
      const field = name ?? '';
      if (Buffer.byteLength(field) > formLimits.nameBytes) fail(new PayloadTooLargeError(formLimitMessages.name));
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail(new PayloadTooLargeError(bodyLimitMessages.fileBytes)));
      stream.on('end', () => {
        // An empty file input (no file chosen) arrives with no filename: treat it as absent.
        if (info.filename) {
          files.push({ field, filename: info.filename, mimeType: info.mimeType, content: Buffer.concat(chunks) });
        }
      });
    });
    parser.on('fieldsLimit', () => fail(new PayloadTooLargeError(formLimitMessages.fields)));
    parser.on('filesLimit', () => fail(new PayloadTooLargeError(bodyLimitMessages.files)));
    parser.on('partsLimit', () => fail(new PayloadTooLargeError(formLimitMessages.fields)));
    parser.on('error', () => fail(new BadRequestError('Malformed multipart body.')));
    parser.on('close', () => {
      if (settled) return;
      // Folding runs inside busboy's event: an error here must reject, never escape as an uncaught throw.
      try {
        const fields = foldFormPairs(pairs);
        settled = true;
        resolve({ fields, files });
      } catch (error) {
        fail(error as Error);
      }
    });
    parser.end(body);
  });
}

function parseUrlencoded(body: Buffer): ParsedBody {
  return { fields: foldFormPairs(new URLSearchParams(body.toString('utf8'))), files: [] };
}

/** Whether a parsed JSON value nests deeper than the limit; iterative, so no input can overflow the stack. */
function nestsTooDeep(value: unknown): boolean {
  const pending: [unknown, number][] = [[value, 1]];
  while (pending.length > 0) {
    const [node, depth] = pending.pop() as [unknown, number];
    if (node === null || typeof node !== 'object') continue;
    if (depth > bodyLimits.jsonDepth) return true;
    for (const child of Object.values(node)) pending.push([child, depth + 1]);
  }
  return false;
}

function parseJson(text: string): ParsedBody {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    throw new BadRequestError('Malformed JSON body.');
  }
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    throw new BadRequestError('The JSON body must be an object.');
  }
  if (nestsTooDeep(value)) throw new BadRequestError(bodyLimitMessages.jsonDepth);
  return { fields: value as Record<string, unknown>, files: [] };
}

/** Parse a body by its content type. An empty body is no fields, whatever the type says. */
export async function parseBody(body: Buffer, contentType: string | undefined): Promise<ParsedBody> {
  if (body.length === 0) return { fields: {}, files: [] };
  const type = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  switch (type) {
    case 'multipart/form-data':
      return parseMultipart(body, contentType as string);
    case 'application/x-www-form-urlencoded':
      return parseUrlencoded(body);
    case 'application/json':
      return parseJson(body.toString('utf8'));
    case '':
      throw new BadRequestError('A request body needs a Content-Type header.');
    default:
      throw new BadRequestError(`Unsupported content type ${type}.`);
  }
}

export type { FormFields };
