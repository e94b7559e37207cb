// The HTTP error hierarchy: each error knows its status and the spec's `errors` member. Only errors
// of this hierarchy expose their text (client errors, and a 503 that says what is unavailable);
// anything else becomes a generic 500.

export type FieldErrors = Record<string, string[]>;

export class HttpError extends Error {
  constructor(
    readonly statusCode: number,
    readonly errors: string | FieldErrors,
    readonly headers: Record<string, string> = {},
  ) {
    super(typeof errors === 'string' ? errors : JSON.stringify(errors));
    this.name = new.target.name;
  }

  toJSON(): { status: 'failed'; errors: string | FieldErrors } {
    return { status: 'failed', errors: this.errors };
  }
}

/** 422: input failed validation; `errors` maps each field to its messages. */
export class ValidationError extends HttpError {
  constructor(errors: FieldErrors) {
    super(422, errors);
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** 404 with a plain text, for callers that know the text themselves (route not-found texts come from the table). */
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

/** 409: the request is valid but the record's state does not allow it (e.g. set-live without a group). */
export class ConflictError extends HttpError {
  constructor(text: string) {
    super(409, text);
  }
}

/**
 * 429: the caller is past its request limit; `Retry-After` says in how many whole seconds the limit
 * lets it in again.
 */
export class TooManyRequestsError extends HttpError {
  constructor(
    text: string,
    readonly retryAfterSeconds: number,
    headers: Record<string, string> = {},
  ) {
    super(429, text, { ...headers, 'retry-after': String(Math.max(1, Math.ceil(retryAfterSeconds))) });
  }
}

/** 503: a service the request needs refuses for now (SES paused sending); says when to try again. */
export class ServiceUnavailableError extends HttpError {
  constructor(text: string, retryAfterSeconds: number) {
    super(503, text, { 'Retry-After': String(retryAfterSeconds) });
  }
}
