// Request bodies in the three encodings clients send: multipart/form-data (with files), urlencoded
// and JSON. Each yields the same `{fields, files}` shape; anything unreadable is a 400.
import busboy from 'busboy';
import { BadRequestError } from './errors';
import { foldFormPairs, type FormFields } from './form-keys';

export interface UploadedFile {
  field: string;
  filename: string;
  mimeType: string;
  content: Buffer;
}

export interface ParsedBody {
  fields: Record<string, unknown>;
  files: UploadedFile[];
}

/** Upper bounds that keep one request from exhausting a Lambda's memory. */
const limits = { files: 5, fields: 20_000, fileSize: 10 * 1024 * 1024 };

function parseMultipart(body: Buffer, contentType: string): Promise<ParsedBody> {
  return new Promise((resolve, reject) => {
    let parser: busboy.Busboy;
    try {
      parser = busboy({ headers: { 'content-type': contentType }, defParamCharset: 'utf8', limits });
    } catch {
      reject(new BadRequestError('Malformed multipart body.'));
      return;
    }
    const pairs: [string, string][] = [];
    const files: UploadedFile[] = [];
    let failed = false;
    const fail = (text: string) => {
      if (failed) return;
      failed = true;
      reject(new BadRequestError(text));
    };
    parser.on('field', (name, value) => pairs.push([name, value]));
    parser.on('file', (field, stream, info) => {
      const chunks: Buffer[] = [];
      stream.on('data', (chunk: Buffer) => chunks.push(chunk));
      stream.on('limit', () => fail('Uploaded file is too large.'));
      stream.on('end', () => {
        // An empty file input (no file chosen) arrives with no filename: treat it as absent.
        if (info.filename) {
          files.push({ field, filename: info.filename, mimeType: info.mimeType, content: Buffer.concat(chunks) });
        }
      });
    });
    parser.on('error', () => fail('Malformed multipart body.'));
    parser.on('close', () => {
      if (!failed) resolve({ fields: foldFormPairs(pairs), files });
    });
    parser.end(body);
  });
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
      return { fields: foldFormPairs(new URLSearchParams(body.toString('utf8'))), files: [] };
    case 'application/json':
      return parseJson(body.toString('utf8'));
    case '':
      throw new BadRequestError('A request body needs a Content-Type header.');
    default:
      throw new BadRequestError(`Unsupported content type ${type}.`);
  }
}

export type { FormFields };
