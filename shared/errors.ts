// The error vocabulary: what went wrong, in the domain's words, for any module to throw. None of these
// knows HTTP: the request pipeline's error registry (shared/http/error-registry.ts) says how each is
// answered, as it does for the named errors of entity and capability folders that an operation
// registers; an error nobody registered is answered as a generic 500.

export type FieldErrors = Record<string, string[]>;

/** The base of the vocabulary: each error is named after its class, as the logs show it. */
export abstract class DomainError extends Error {
  constructor(message: string) {
    super(message);
    this.name = new.target.name;
  }
}

/** Input failed validation; `errors` maps each field to its messages. */
export class ValidationError extends DomainError {
  constructor(readonly errors: FieldErrors) {
    super(JSON.stringify(errors));
  }

  static of(field: string, message: string): ValidationError {
    return new ValidationError({ [field]: [message] });
  }
}

/** The request is valid but the record's state does not allow it (e.g. set-live without a group); the message says why. */
export class Conflict extends DomainError {}

/** The caller is past a limit of its own; it may try again in `retryAfterSeconds`. The message says which limit. */
export class RateLimited extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}

/**
 * Something the work needs refuses for now (SES paused sending, the request ran out of time), for no
 * fault of the caller; the message says what, `retryAfterSeconds` when to try again.
 */
export class Unavailable extends DomainError {
  constructor(
    message: string,
    readonly retryAfterSeconds: number,
  ) {
    super(message);
  }
}
