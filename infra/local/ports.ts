// Port checks for the local stack: find a free port, and fail fast with one line naming a taken one
// before anything (Java in particular) is started.
import { createServer } from 'node:net';

export class PortInUseError extends Error {
  override readonly name = 'PortInUseError';
}

function tryListen(port: number, host: string): Promise<NodeJS.ErrnoException | undefined> {
  return new Promise((resolve) => {
    const probe = createServer();
    probe.once('error', (error: NodeJS.ErrnoException) => resolve(error));
    probe.listen({ port, host, exclusive: true }, () => probe.close(() => resolve(undefined)));
  });
}

/** A port that was free a moment ago (for tests and `port: 0` options). */
export async function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = createServer();
    probe.once('error', reject);
    probe.listen({ port: 0, host: '127.0.0.1' }, () => {
      const address = probe.address();
      const port = typeof address === 'object' && address ? address.port : 0;
      probe.close(() => resolve(port));
    });
  });
}

/**
 * Throws PortInUseError when anything listens on `port`, on any interface: DynamoDB Local binds every
 * interface, so a wildcard bind is the test that matches. IPv6 being unavailable is not a conflict.
 */
export async function assertPortFree(port: number, service: string, envName: string): Promise<void> {
  for (const host of ['0.0.0.0', '::']) {
    const error = await tryListen(port, host);
    if (!error) continue;
    if (error.code === 'EADDRINUSE' || error.code === 'EACCES') {
      const reason = error.code === 'EACCES' ? 'is not allowed' : 'is already in use';
      throw new PortInUseError(`port ${port} (${service}) ${reason}; set ${envName} to another port`);
    }
    if (error.code !== 'EAFNOSUPPORT' && error.code !== 'EADDRNOTAVAIL') throw error;
  }
}

export interface PortClaim {
  port: number;
  service: string;
  envName: string;
}

/** Every port free and no two the same; throws one line naming the first problem. */
export async function assertPortsFree(claims: PortClaim[]): Promise<void> {
  for (const claim of claims) await assertPortFree(claim.port, claim.service, claim.envName);
  const seen = new Map<number, PortClaim>();
  for (const claim of claims) {
    const earlier = seen.get(claim.port);
    if (earlier) throw new PortInUseError(`${earlier.envName} and ${claim.envName} are both ${claim.port}; give each its own port`);
    seen.set(claim.port, claim);
  }
}

/** The stack's ports with the service and the variable that sets each, for one-line port errors. */
export function stackPortClaims(api: number, dynamodb: number, ses: number): PortClaim[] {
  return [
    { port: api, service: 'API gateway', envName: 'PORT' },
    { port: dynamodb, service: 'DynamoDB Local', envName: 'DYNAMODB_PORT' },
    { port: ses, service: 'SES sink', envName: 'SES_PORT' },
  ];
}
