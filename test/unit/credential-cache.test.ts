// The credential cache on a clock the test moves: a found credential is served for exactly its
// time-to-live and then looked up again (so a revoked key is refused after it), a missing one is never
// kept, the oldest entry gives way when full; and the time-to-live's setting is bounded by a minute.
import { credentialCache } from '../../shared/auth/credential-cache';
import { config, resetConfig } from '../../shared/config';

interface Stored {
  accountId: number;
}

/** A store whose contents the test changes, counting lookups. */
function store(initial: Record<string, Stored>) {
  const items = new Map(Object.entries(initial));
  const lookups: string[] = [];
  return {
    items,
    lookups,
    load: (key: string) => async () => {
      lookups.push(key);
      return items.get(key);
    },
  };
}

function clock(start = 1_000_000) {
  const time = { now: start };
  return { time, now: () => time.now };
}

describe('credential cache', () => {
  test('a revoked credential is served until its time-to-live ends, then refused', async () => {
    // Prepare
    const keys = store({ pk_a: { accountId: 7 } });
    const { time, now } = clock();
    const cache = credentialCache<Stored>({ ttlMs: () => 500, maxEntries: 10, now });
    expect(await cache.get('pk_a', keys.load('pk_a'))).toEqual({ accountId: 7 });

    // Act
    keys.items.delete('pk_a');
    time.now += 499;
    const justBefore = await cache.get('pk_a', keys.load('pk_a'));
    time.now += 1;
    const atExpiry = await cache.get('pk_a', keys.load('pk_a'));

    // Assess
    expect(justBefore).toEqual({ accountId: 7 });
    expect(atExpiry).toBeUndefined();
    expect(keys.lookups).toEqual(['pk_a', 'pk_a']);
  });

  test('the time-to-live is read when an entry is stored, so a new setting applies to the next lookup', async () => {
    const keys = store({ pk_a: { accountId: 1 } });
    const { time, now } = clock();
    let ttl = 60_000;
    const cache = credentialCache<Stored>({ ttlMs: () => ttl, maxEntries: 10, now });
    await cache.get('pk_a', keys.load('pk_a'));
    ttl = 100;
    time.now += 60_000;

    await cache.get('pk_a', keys.load('pk_a'));
    time.now += 100;
    await cache.get('pk_a', keys.load('pk_a'));

    expect(keys.lookups).toEqual(['pk_a', 'pk_a', 'pk_a']);
  });

  test('an unknown key is looked up every time, so a key added later works at once', async () => {
    const keys = store({});
    const { now } = clock();
    const cache = credentialCache<Stored>({ ttlMs: () => 60_000, maxEntries: 10, now });

    const before = await cache.get('pk_new', keys.load('pk_new'));
    keys.items.set('pk_new', { accountId: 3 });
    const after = await cache.get('pk_new', keys.load('pk_new'));

    expect(before).toBeUndefined();
    expect(after).toEqual({ accountId: 3 });
    expect(keys.lookups).toEqual(['pk_new', 'pk_new']);
  });

  test('when full, the oldest entry is dropped; clear drops them all', async () => {
    const keys = store({ pk_a: { accountId: 1 }, pk_b: { accountId: 2 }, pk_c: { accountId: 3 } });
    const { now } = clock();
    const cache = credentialCache<Stored>({ ttlMs: () => 60_000, maxEntries: 2, now });
    for (const key of ['pk_a', 'pk_b', 'pk_c', 'pk_b', 'pk_c']) await cache.get(key, keys.load(key));
    expect(keys.lookups).toEqual(['pk_a', 'pk_b', 'pk_c']);

    await cache.get('pk_a', keys.load('pk_a'));
    cache.clear();
    await cache.get('pk_c', keys.load('pk_c'));

    expect(keys.lookups).toEqual(['pk_a', 'pk_b', 'pk_c', 'pk_a', 'pk_c']);
  });
});

describe('CREDENTIAL_CACHE_MS', () => {
  const saved = { ...process.env };

  beforeEach(() => {
    process.env.TABLE_NAME = 'unit';
    delete process.env.CREDENTIAL_CACHE_MS;
    resetConfig();
  });

  afterAll(() => {
    process.env = saved;
    resetConfig();
  });

  test('defaults to the maximum, one minute', () => {
    expect(config().credentialCacheMs).toBe(60_000);
  });

  test('takes a shorter time', () => {
    process.env.CREDENTIAL_CACHE_MS = '250';
    expect(config().credentialCacheMs).toBe(250);
  });

  test.each([
    ['60001', "CREDENTIAL_CACHE_MS must be at most 60000, got '60001'"],
    ['0', "CREDENTIAL_CACHE_MS must be a positive integer, got '0'"],
    ['1.5', "CREDENTIAL_CACHE_MS must be a positive integer, got '1.5'"],
    ['soon', "CREDENTIAL_CACHE_MS must be a positive integer, got 'soon'"],
  ])('refuses %s by name', (value, message) => {
    process.env.CREDENTIAL_CACHE_MS = value;
    expect(() => config()).toThrow(message);
  });
});
