// What an operation returns, and how each kind becomes the spec's response envelope.
import type { APIGatewayProxyStructuredResultV2 } from 'aws-lambda';

export type Reply =
  | { kind: 'message'; message: unknown }
  | { kind: 'success-in-errors'; text: string }
  | { kind: 'raw'; result: APIGatewayProxyStructuredResultV2 };

/** `{status: 'success', message}`: the spec's success envelope. */
export function ok(message: unknown): Reply {
  return { kind: 'message', message };
}

/**
 * `{status: 'success', errors: text}`: the spec's odd success body of segment, contact type and
 * sender delete, kept exactly so existing clients work unchanged.
 */
export function okInErrors(text: string): Reply {
  return { kind: 'success-in-errors', text };
}

/** A response outside the JSON envelope: a CSV download, an HTML page, an image. */
export function raw(result: APIGatewayProxyStructuredResultV2): Reply {
  return { kind: 'raw', result };
}

const jsonHeaders = { 'content-type': 'application/json; charset=utf-8' };

export function jsonResult(
  statusCode: number,
  body: unknown,
  headers: Record<string, string> = {},
): APIGatewayProxyStructuredResultV2 {
  return { statusCode, headers: { ...jsonHeaders, ...headers }, body: JSON.stringify(body) };
}

export function toResult(reply: Reply): APIGatewayProxyStructuredResultV2 {
  switch (reply.kind) {
    case 'message':
      return jsonResult(200, { status: 'success', message: reply.message });
    case 'success-in-errors':
      return jsonResult(200, { status: 'success', errors: reply.text });
    case 'raw':
      return reply.result;
  }
}
