// A real HTTP receiver for webhook tests (node:http on 127.0.0.1): records each request it gets and
// answers with the status the test queues up (200, or the test's standing answer, when none is queued), and checks signatures as a
// receiver would, with the Standard Webhooks library.
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { Webhook } from 'standardwebhooks';

export interface ReceivedWebhook {
  path: string;
  headers: IncomingHttpHeaders;
  body: string;
  receivedAt: number;
}

export interface WebhookReceiver {
  url: (path?: string) => string;
  received: ReceivedWebhook[];
  /** Answer the next requests with these statuses, in order (0: never answer). */
  answerNext: (...statuses: number[]) => void;
  /** Answer every request not queued by `answerNext` with this status (200 again when undefined). */
  answerAll: (status: number | undefined) => void;
  close: () => Promise<void>;
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const statuses: number[] = [];
  let otherwise = 200;
  const server: Server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      received.push({ path: request.url ?? '', headers: request.headers, body: Buffer.concat(chunks).toString('utf8'), receivedAt: Date.now() });
      const status = statuses.shift() ?? otherwise;
      // 0: a receiver that has hung, answering nothing.
      if (status === 0) return;
      response.writeHead(status, status >= 300 && status < 400 ? { location: 'http://127.0.0.1:9/elsewhere' } : {});
      response.end('ignored by the sender');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: (path = '/hook') => `http://127.0.0.1:${port}${path}`,
    received,
    answerNext: (...next) => statuses.push(...next),
    answerAll: (status) => {
      otherwise = status ?? 200;
    },
    close: () =>
      new Promise((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      }),
  };
}

/** The request's headers as the library takes them (one string each). */
function headersOf(request: ReceivedWebhook): Record<string, string> {
  return Object.fromEntries(Object.entries(request.headers).map(([name, value]) => [name, Array.isArray(value) ? value.join(', ') : String(value ?? '')]));
}

/**
 * What a receiver's `new Webhook(secret).verify(body, headers)` (the `standardwebhooks` package) makes
 * of the request: the parsed body, or the message it was refused with.
 */
export function verifyAsReceiver(request: ReceivedWebhook, secret: string): { payload: unknown } | { refused: string } {
  try {
    return { payload: new Webhook(secret).verify(request.body, headersOf(request)) };
  } catch (error) {
    return { refused: (error as Error).message };
  }
}

/** Whether the Standard Webhooks library accepts the request for `secret`. */
export function hasValidSignature(request: ReceivedWebhook, secret: string): boolean {
  return 'payload' in verifyAsReceiver(request, secret);
}
