// The request limits the suite runs under: far above anything a test sends, so no test is refused for
// sending fast, on a fast machine or a slow one. A test of a limit sets its own (rate-limits,
// public-limits, sender-confirmation-limit, local-start-rate-limit, public-links-client-limit), and the
// unit tests of the settings read the defaults with these unset. Jest gives each test file its own copy of the environment.
export const suiteAccountRateLimit = 1_000_000;
export const suitePublicRateLimit = 1_000_000;
/** Requests per minute per client address on the local public links (the WAF stand-in). */
export const suitePublicClientLimit = 1_000_000;

process.env.ACCOUNT_RATE_LIMIT ??= String(suiteAccountRateLimit);
process.env.PUBLIC_RATE_LIMIT ??= String(suitePublicRateLimit);
process.env.PUBLIC_CLIENT_LIMIT ??= String(suitePublicClientLimit);
