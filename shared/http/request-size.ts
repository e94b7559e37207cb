// How large a request can reach a function deployed behind API Gateway: Lambda takes at most 6 MB of
// event per synchronous invocation, and API Gateway puts a binary body (multipart, urlencoded, any
// type but text and JSON) into that event base64-encoded, beside the headers and the query.

/** Lambda's limit of one synchronous event ("Request must be smaller than 6291456 bytes"). */
export const lambdaEventBytes = 6 * 1024 * 1024;

/**
 * Room kept in the event for everything but the body. API Gateway takes up to 10 KB of request line
 * and headers; the query string is in the event twice (raw and parsed), JSON escaping can double a
 * value, and the request context adds about 1 KB: a request with headers and query at API Gateway's
 * limit still fits.
 */
export const eventRoomBytes = 64 * 1024;

/** The largest body that reaches a function whatever its encoding: base64 makes every 3 bytes 4. */
export const maxBodyBytes = Math.floor((lambdaEventBytes - eventRoomBytes) / 4) * 3;

/** Room in a multipart body beside its file: the boundaries, each part's headers (a file name of up to 255 bytes) and the small fields. */
export const multipartRoomBytes = 48 * 1024;

/** The largest uploaded file, in tenths of a MB (1,048,576 bytes): what fits a body beside its framing. */
export const maxFileMegabytes = Math.floor(((maxBodyBytes - multipartRoomBytes) / (1024 * 1024)) * 10) / 10;
export const maxFileBytes = Math.floor(maxFileMegabytes * 1024 * 1024);

/** The answer to a body past `maxBodyBytes`, from the function and from the local gateway alike. */
export const bodyTooLargeMessage = 'Request body too large.';
