// A webhook saved or deleted in one container applies to events handled in another from the next
// second on, without a Query per event. A container is a module registry of its own (jest
// isolateModules): its own copy of the webhooks, clock and DynamoDB client, sharing only the table.
import { addWebhook, deleteWebhook } from '../../shared/webhooks/repository';
import type { Webhook } from '../../shared/webhooks/repository';
import { newAccount } from '../support/accounts';

interface Container {
  webhooksOf(accountId: number): Promise<Webhook[]>;
  setClock(epochMs: number): void;
  /** Queries this container has sent. */
  queries(): number;
}

function startContainer(): Container {
  let container: Container | undefined;
  jest.isolateModules(() => {
    /* eslint-disable @typescript-eslint/no-require-imports */
    const time = require('../../shared/time') as typeof import('../../shared/time');
    const cache = require('../../shared/webhooks/webhook-cache') as typeof import('../../shared/webhooks/webhook-cache');
    const table = require('../../shared/table/client') as typeof import('../../shared/table/client');
    /* eslint-enable @typescript-eslint/no-require-imports */
    let queries = 0;
    table.db().middlewareStack.add(
      (next, context) => async (args) => {
        if (/^Query(Command)?$/.test(String(context.commandName).replace(/Command$/, ''))) queries += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countQueries' },
    );
    container = {
      webhooksOf: (accountId) => cache.webhooksOf(accountId),
      setClock: (epochMs) => time.setClock(() => new Date(epochMs)),
      queries: () => queries,
    };
  });
  if (!container) throw new Error('the container did not start');
  return container;
}

const second = Date.UTC(2033, 4, 1, 10, 0, 0);
const urls = (webhooks: Webhook[]) => webhooks.map((webhook) => webhook.url);

test('a webhook saved in one container reaches the events of another from the next second on', async () => {
  // Prepare: the event container has read the account's (empty) webhooks.
  const { account_id: accountId } = await newAccount();
  const events = startContainer();
  events.setClock(second + 100);
  const before = await events.webhooksOf(accountId);

  // Act: saved elsewhere in the same second, then an event in the next.
  await addWebhook(accountId, { url: 'https://hooks.example.org/in', events: ['open'], encryptedSecret: 'sealed' }, 10);
  events.setClock(second + 1_050);
  const after = await events.webhooksOf(accountId);

  // Assess
  expect(urls(before)).toEqual([]);
  expect(urls(after)).toEqual(['https://hooks.example.org/in']);
});

test('a webhook deleted elsewhere gets no events from the next second on', async () => {
  // Prepare
  const { account_id: accountId } = await newAccount();
  const saved = await addWebhook(accountId, { url: 'https://hooks.example.org/gone', events: ['click'], encryptedSecret: 'sealed' }, 10);
  const events = startContainer();
  events.setClock(second + 200);
  const before = await events.webhooksOf(accountId);

  // Act
  await deleteWebhook(accountId, saved?.id ?? 0);
  events.setClock(second + 1_200);
  const after = await events.webhooksOf(accountId);

  // Assess
  expect(urls(before)).toEqual(['https://hooks.example.org/gone']);
  expect(urls(after)).toEqual([]);
});

test('many events of an account cost one Query until its webhooks change', async () => {
  // Prepare
  const { account_id: accountId } = await newAccount();
  await addWebhook(accountId, { url: 'https://hooks.example.org/busy', events: ['open'], encryptedSecret: 'sealed' }, 10);
  const events = startContainer();

  // Act: 50 events in each of 4 seconds.
  for (let s = 0; s < 4; s++) {
    events.setClock(second + s * 1_000 + 300);
    for (let i = 0; i < 50; i++) await events.webhooksOf(accountId);
  }

  // Assess
  expect(events.queries()).toBe(1);
});
