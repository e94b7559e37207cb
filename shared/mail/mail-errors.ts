// What a failed send means to the caller: throttled (retry later, never count as sent), paused (stop
// sending until someone acts), or anything else (the SDK error itself).

/** SES refused for rate or quota; the message was not sent and should be retried with backoff. */
export class MailThrottledError extends Error {
  override readonly name = 'MailThrottledError';
  constructor(
    readonly reason: 'rate' | 'daily-quota',
    message: string,
    options?: { cause?: unknown },
  ) {
    super(message, options);
  }
}

/**
 * Sending is paused for the account or the configuration set. Not a throttle: retrying soon fails
 * the same way, so a sender should stop and keep its place.
 */
export class MailSendingPausedError extends Error {
  override readonly name = 'MailSendingPausedError';
  constructor(message: string, options?: { cause?: unknown }) {
    super(message, options);
  }
}

// SES v2 answers TooManyRequestsException for the send rate; the common ThrottlingException (and v1's
// Throttling) also occur. The daily quota comes back as LimitExceededException or, in older paths, as
// a throttle whose message names the quota.
const throttleNames = new Set(['TooManyRequestsException', 'ThrottlingException', 'Throttling']);

/** Map an SES SDK error to the typed error a caller acts on; other errors come back unchanged. */
export function classifyMailError(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const quota = /quota/i.test(error.message);
  if (throttleNames.has(error.name)) return new MailThrottledError(quota ? 'daily-quota' : 'rate', error.message, { cause: error });
  if (error.name === 'LimitExceededException' && quota) return new MailThrottledError('daily-quota', error.message, { cause: error });
  if (error.name === 'SendingPausedException') return new MailSendingPausedError(error.message, { cause: error });
  return error;
}
