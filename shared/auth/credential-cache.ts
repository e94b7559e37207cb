// The container's cache of resolved credentials: a found credential is kept for a fixed time, so a
// revoked key stops working in every container at most that long after its item is deleted. A key
// that resolves to nothing is not kept, so a freshly rotated key works at once.

export interface CredentialCacheOptions {
  /** How long a found value is served without asking again, read when it is stored. */
  ttlMs: () => number;
  maxEntries: number;
  /** The clock; the real one unless a test drives it. */
  now?: () => number;
}

export interface CredentialCache<Value> {
  /** The cached value while fresh, else what `load` finds now (kept when found). */
  get(key: string, load: () => Promise<Value | undefined>): Promise<Value | undefined>;
  clear(): void;
}

export function credentialCache<Value>({ ttlMs, maxEntries, now = Date.now }: CredentialCacheOptions): CredentialCache<Value> {
  const entries = new Map<string, { value: Value; until: number }>();
  return {
    async get(key, load) {
      const hit = entries.get(key);
      if (hit && hit.until > now()) return hit.value;
      entries.delete(key);
      const value = await load();
      if (value !== undefined) {
        // Oldest first: a Map iterates in insertion order.
        if (entries.size >= maxEntries) entries.delete(entries.keys().next().value as string);
        entries.set(key, { value, until: now() + ttlMs() });
      }
      return value;
    },
    clear() {
      entries.clear();
    },
  };
}
