// Idempotency-Key on authenticated POSTs (after the IETF draft "The Idempotency-Key HTTP Header
// Field"): the first request with a key runs and its answer (under 500) is kept a day; a repeat of
// the same request gets that answer again with `Idempotent-Replayed: true` and does nothing else.
// Requests without the header pass straight through, at no cost.
import { createHash } from 'node:crypto';
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';
import { claimIdempotencyKey, keepAnswer, releaseIdempotencyKey, type StoredAnswer } from '../idempotency/repository';
import { currentTime } from '../time';
import { Conflict, ValidationError } from '../errors';
import type { ApiRequest } from './request';

export const idempotencyHeader = 'Idempotency-Key';

/** How long an answer is kept for replay. */
const keptSeconds = 24 * 3600;

/**
 * How long a running request holds its key: past it (the function's 29-second limit and then some)
 * the request is taken to have died, and a retry with the key runs.
 */
const runningSeconds = 120;

/** Answers larger than this are not kept (an item holds 400 KB): a retry of such a request runs again. */
const maxKeptBodyBytes = 350_000;

/** The header's value, checked: 1 to 255 printable ASCII characters. */
function clientKeyOf(request: ApiRequest): string | undefined {
  const name = Object.keys(request.headers).find((header) => header.toLowerCase() === 'idempotency-key');
  if (name === undefined) return undefined;
  const value = request.headers[name] ?? '';
  if (!/^[\x20-\x7e]{1,255}$/.test(value)) {
    throw ValidationError.of(idempotencyHeader, 'The Idempotency-Key must be 1 to 255 printable ASCII characters.');
  }
  return value;
}

/** A value with its object keys sorted, so equal fields give equal JSON whatever their order. */
function canonical(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(canonical);
  if (value && typeof value === 'object') {
    return Object.fromEntries(Object.keys(value).sort().map((key) => [key, canonical((value as Record<string, unknown>)[key])]));
  }
  return value;
}

/** What makes two requests the same: method, path, query and parsed fields and files (not their encoding). */
function fingerprintOf(request: ApiRequest): string {
  const files = request.files.map((file) => ({ field: file.field, filename: file.filename, type: file.mimeType, sha256: createHash('sha256').update(file.content).digest('base64') }));
  const shape = canonical({ method: request.method, path: request.path, query: request.query, fields: request.fields, files });
  return createHash('sha256').update(JSON.stringify(shape)).digest('base64url');
}

function stored(result: APIGatewayProxyStructuredResultV2): StoredAnswer {
  const headers = Object.fromEntries(Object.entries(result.headers ?? {}).map(([name, value]) => [name, String(value)]));
  return { statusCode: result.statusCode ?? 200, headers, body: result.body ?? '', isBase64Encoded: result.isBase64Encoded ?? false };
}

/**
 * Run an authenticated request once per Idempotency-Key: `run` answers (errors included, already
 * mapped to answers). Throws the 422 and 409 of a key misused or in use.
 */
export async function runIdempotently(accountId: number, request: ApiRequest, run: () => Promise<APIGatewayProxyStructuredResultV2>): Promise<APIGatewayProxyStructuredResultV2> {
  if (request.method !== 'POST') return run();
  const clientKey = clientKeyOf(request);
  if (clientKey === undefined) return run();
  const fingerprint = fingerprintOf(request);
  const now = Math.floor(currentTime().getTime() / 1000);
  const claim = await claimIdempotencyKey(accountId, clientKey, fingerprint, { now, expiresAt: now + keptSeconds, runningUntil: now + runningSeconds });
  if (claim !== true) {
    if (claim.fingerprint !== fingerprint) throw ValidationError.of(idempotencyHeader, 'The Idempotency-Key was used with a different request.');
    if (claim.state === 'running') throw new Conflict('A request with this Idempotency-Key is in progress.');
    return { ...claim.answer, headers: { ...claim.answer.headers, 'idempotent-replayed': 'true' } };
  }
  let result: APIGatewayProxyStructuredResultV2 | undefined;
  try {
    result = await run();
  } finally {
    const answer = result && stored(result);
    if (answer && answer.statusCode < 500 && Buffer.byteLength(answer.body) <= maxKeptBodyBytes) await keepAnswer(accountId, clientKey, fingerprint, answer);
    else await releaseIdempotencyKey(accountId, clientKey, fingerprint);
  }
  return result;
}
