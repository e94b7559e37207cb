// Refusals of the HTTP exchange itself, thrown by the request pipeline while it reads a request (path,
// method, credentials, body): each carries its status and the envelope's `errors` member. Everything
// below the pipeline throws the vocabulary of shared/errors.ts instead.
import type { FieldErrors } from '../errors';

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errors: string | FieldErrors,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof errors === 'string' ? errors : JSON.stringify(errors));
    this.name = new.target.name;
  }
}

/** 404: no route has this path. */
export class NotFoundError extends HttpError {
  constructor(text: string) {
    super(404, text);
  }
}

/** 401: credentials missing (field errors per header) or wrong (plain text). */
export class UnauthorizedError extends HttpError {
  constructor(errors: string | FieldErrors) {
    super(401, errors);
  }
}

/** 400: the request could not be read (malformed JSON, broken multipart, unsupported encoding, a broken path). */
export class BadRequestError extends HttpError {
  constructor(text: string) {
    super(400, text);
  }
}

/** 413: the body is past a limit (size, number of fields or files, a field's name or value); never cut short. */
export class PayloadTooLargeError extends HttpError {
  constructor(text: string) {
    super(413, text);
  }
}

/** 405: a known path asked with a method it does not accept. */
export class MethodNotAllowedError extends HttpError {
  constructor(allowed: string[]) {
    super(405, 'Method Not Allowed.', { allow: allowed.join(', ') });
  }
}
