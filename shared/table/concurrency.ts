// Bounded concurrency and chunking: the one copy the data layer and the automation engine share
// (many small table writes, batch requests, delivery batches).

/** Run `work` on every item, at most `limit` at a time. */
export async function inParallel<T>(items: readonly T[], limit: number, work: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async () => {
    while (next < items.length) await work(items[next++] as T);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Items in groups of `size`, in order. */
export function chunked<T>(items: readonly T[], size: number): T[][] {
  const groups: T[][] = [];
  for (let start = 0; start < items.length; start += size) groups.push(items.slice(start, start + size));
  return groups;
}
