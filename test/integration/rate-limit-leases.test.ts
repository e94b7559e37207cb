// The per-account limit across containers, on DynamoDB Local: each container leases its share of an
// account's second in chunks, so a steady caller costs few table writes, and two containers together
// still hold the account to its limit. A container is a module registry of its own (jest
// isolateModules): its own leases, clock and DynamoDB client, sharing only the table.
import type { RateLimitState } from '../../shared/rate-limits/account-limit';

interface Container {
  take(accountId: number): Promise<RateLimitState | undefined>;
  setSecond(epochSeconds: number): void;
  /** Read the environment's limit again, as a container started with it would. */
  reconfigure(): void;
  /** UpdateItem calls this container has sent. */
  writes(): number;
}

function startContainer(): Container {
  let container: Container | undefined;
  jest.isolateModules(() => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const time = require('../../shared/time') as typeof import('../../shared/time');
    const limits = require('../../shared/rate-limits/account-limit') as typeof import('../../shared/rate-limits/account-limit');
    const table = require('../../shared/table/client') as typeof import('../../shared/table/client');
    const configuration = require('../../shared/config') as typeof import('../../shared/config');
    /* eslint-enable @typescript-eslint/no-require-imports */
    let writes = 0;
    // A new configuration builds a new client: count on whichever client the container uses now.
    const counted = new WeakSet<object>();
    const counting = (): void => {
      const client = table.db();
      if (counted.has(client)) return;
      counted.add(client);
      client.middlewareStack.add(
        (next, context) => async (args) => {
          if (/^Update(Item)?Command$/.test(String(context.commandName))) writes += 1;
          return next(args);
        },
        { step: 'initialize', name: 'countWrites' },
      );
    };
    container = {
      take: (accountId) => {
        counting();
        return limits.takeAccountRequest(accountId);
      },
      setSecond: (epochSeconds) => time.setClock(() => new Date(epochSeconds * 1000 + 200)),
      writes: () => writes,
      reconfigure: () => configuration.resetConfig(),
    };
  });
  if (!container) throw new Error('the container did not start');
  return container;
}

let nextAccount = 900_000_000 + Math.floor(Math.random() * 1_000_000);
const firstSecond = Math.floor(Date.UTC(2032, 2, 1, 8, 0, 0) / 1000);

afterAll(() => {
  delete process.env.ACCOUNT_RATE_LIMIT;
});

/** `requests` requests of one account in each of `seconds` seconds, spread over the containers in turn, `inFlight` at a time. */
async function load(containers: Container[], options: { limit: number; seconds: number; requests: number; inFlight: number }): Promise<number[]> {
  process.env.ACCOUNT_RATE_LIMIT = String(options.limit);
  for (const container of containers) container.reconfigure();
  const accountId = (nextAccount += 1);
  const admittedPerSecond: number[] = [];
  for (let s = 0; s < options.seconds; s++) {
    for (const container of containers) container.setSecond(firstSecond + accountId + s);
    let admitted = 0;
    let sent = 0;
    const worker = async (): Promise<void> => {
      while (sent < options.requests) {
        const container = containers[sent % containers.length] as Container;
        sent += 1;
        if ((await container.take(accountId))?.retryAfterSeconds === undefined) admitted += 1;
      }
    };
    await Promise.all(Array.from({ length: options.inFlight }, worker));
    admittedPerSecond.push(admitted);
  }
  return admittedPerSecond;
}

test('a steady caller below the limit costs at most one table write per ten requests', async () => {
  // Prepare
  const containers = [startContainer(), startContainer()];

  // Act: 100 requests a second through each container, for 5 seconds, under a limit of 1,000.
  const admitted = await load(containers, { limit: 1000, seconds: 5, requests: 200, inFlight: 4 });

  // Assess
  const writes = containers.reduce((sum, container) => sum + container.writes(), 0);
  expect(admitted).toEqual([200, 200, 200, 200, 200]);
  expect(writes / 1000).toBeLessThanOrEqual(0.1);
});

test('two containers together hold an account to its limit within 10%, never above it', async () => {
  // Prepare
  const containers = [startContainer(), startContainer()];

  // Act: twice the limit asked for in every second, through both containers.
  const admitted = await load(containers, { limit: 50, seconds: 6, requests: 100, inFlight: 6 });

  // Assess
  for (const count of admitted) {
    expect(count).toBeLessThanOrEqual(50);
    expect(count).toBeGreaterThanOrEqual(45);
  }
});

test('a refused request in a used-up second writes nothing', async () => {
  // Prepare
  const [container] = [startContainer()] as [Container];
  await load([container], { limit: 5, seconds: 1, requests: 5, inFlight: 1 });
  const before = container.writes();

  // Act: the same second, 50 more requests of that account.
  nextAccount -= 1;
  const admitted = await load([container], { limit: 5, seconds: 1, requests: 50, inFlight: 1 });

  // Assess
  expect(admitted).toEqual([0]);
  expect(container.writes() - before).toBeLessThanOrEqual(1);
});
