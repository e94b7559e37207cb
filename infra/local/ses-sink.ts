// The SES sink for the laptop: aws-ses-v2-local in this process. It accepts SES v2 SendEmail, keeps
// the mail in memory, shows it at `/` and returns it as JSON at `/store`.
import type { AddressInfo } from 'node:net';
import server from 'aws-ses-v2-local';

export interface SesSink {
  /** The endpoint for the SES client, e.g. `http://127.0.0.1:8005`. */
  endpoint: string;
  port: number;
  stop(): Promise<void>;
}

export async function startSesSink(options: { port: number; host?: string }): Promise<SesSink> {
  const host = options.host ?? '127.0.0.1';
  const listener = await server({ host, port: options.port });
  // aws-ses-v2-local resolves even when listen fails, so check that it really listens.
  if (!listener.listening) {
    listener.close();
    throw new Error(`the SES sink could not listen on ${host}:${options.port}`);
  }
  // Node closes an idle keep-alive connection after 5 s; a client that picks that socket from its pool
  // in the same instant gets ECONNRESET, and a mail whose outcome is unknown is, by design, never sent
  // again (shared/sending/deliver.ts). On loopback there is no reason to close idle connections at
  // all, so the sink keeps them until stop() (0 turns the idle timeout off).
  listener.keepAliveTimeout = 0;
  const port = (listener.address() as AddressInfo).port;
  return {
    endpoint: `http://${host}:${port}`,
    port,
    stop: () =>
      new Promise<void>((done) => {
        listener.close(() => done());
        listener.closeAllConnections();
      }),
  };
}
