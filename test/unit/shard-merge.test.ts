// The k-way merge over write-sharded partitions: id order, no gaps or duplicates, resumable from a
// position, and bounded reads per shard (shards filled round-robin, skewed, or empty).
import { contactEmailShardOf, contactKey, contactOfTypeIndexKey, contactShards } from '../../shared/contacts/keys';
import { fnv1a } from '../../shared/table/keys';
import { idSortKey } from '../../shared/table/keys';
import { pageReadSize, ShardMerge, type ShardRead } from '../../shared/table/shard-merge';

const shards = 16;

/** In-memory shards of ids (`id % shards` unless placed otherwise), read like sort-key-bounded Queries. */
function fakeShards(ids: number[], place: (id: number) => number = (id) => id % shards) {
  const byShard: string[][] = Array.from({ length: shards }, () => []);
  for (const id of [...ids].sort((a, b) => a - b)) byShard[place(id)]?.push(idSortKey(id));
  const reads: { shard: number; after: string | undefined; limit: number; got: number }[] = [];
  const read = async (shard: number, after: string | undefined, limit: number): Promise<ShardRead<string>> => {
    const rest = (byShard[shard] ?? []).filter((key) => after === undefined || key > after);
    const items = rest.slice(0, limit);
    reads.push({ shard, after, limit, got: items.length });
    // Like DynamoDB: a page that stops at its Limit carries a LastEvaluatedKey even when nothing follows.
    return { items, more: items.length === limit };
  };
  return { read, reads };
}

/** Every page of `limit` from the start, each a fresh merge from the last key of the page before (like a list cursor). */
async function allPages(read: (shard: number, after: string | undefined, limit: number) => Promise<ShardRead<string>>, limit: number) {
  const pages: string[][] = [];
  let after: string | undefined;
  for (;;) {
    const merge = new ShardMerge<string>(shards, (key) => key, read, after);
    const page = await merge.take(limit, pageReadSize);
    if (page.length > 0) pages.push(page);
    if (!merge.more || page.length === 0) return pages;
    after = page[page.length - 1];
    if (pages.length > 10_000) throw new Error('never ends');
  }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i);
const keys = (ids: number[]) => ids.map(idSortKey);

describe('shard merge', () => {
  it('takes a key found in two shards once, within a page and across the pages of one merge', async () => {
    // An item stored where it was before the partition was sharded, and again in its shard.
    const byShard = [keys([1, 3, 5]), keys([3, 4, 5])];
    const read = async (shard: number, after: string | undefined, limit: number): Promise<ShardRead<string>> => {
      const items = (byShard[shard] ?? []).filter((key) => after === undefined || key > after).slice(0, limit);
      return { items, more: items.length === limit };
    };
    const merge = new ShardMerge<string>(byShard.length, (key) => key, read);

    expect([await merge.take(3, pageReadSize), await merge.take(3, pageReadSize)]).toEqual([keys([1, 3, 4]), keys([5])]);
  });

  it('pages round-robin shards in id order, every id once, one round of Queries per page', async () => {
    const ids = range(1, 2500);
    for (const limit of [1000, 7, 1, 16, 17]) {
      const { read, reads } = fakeShards(ids);
      const pages = await allPages(read, limit);
      expect(pages.flat()).toEqual(keys(ids));
      expect(pages.slice(0, -1).every((page) => page.length === limit)).toBe(true);
      // Round-robin ids: each page reads each shard once (16 Queries), plus the empty reads at the end.
      expect(reads.length).toBeLessThanOrEqual((pages.length + 1) * shards);
    }
  });

  it('reads about limit/16 items from each shard for one page', async () => {
    const { read, reads } = fakeShards(range(1, 2500));
    const page = await new ShardMerge<string>(shards, (key) => key, read).take(1000, pageReadSize);
    expect(page).toEqual(keys(range(1, 1000)));
    expect(reads).toHaveLength(shards);
    expect(reads.every((entry) => entry.limit === Math.ceil(1000 / shards) + 2)).toBe(true);
  });

  it('stays ordered when deletions empty one shard and skew the others', async () => {
    const ids = range(1, 600).filter((id) => id % shards !== 5 && !(id % shards === 9 && id > 100));
    for (const limit of [1000, 7, 50]) {
      const { read } = fakeShards(ids);
      expect((await allPages(read, limit)).flat()).toEqual(keys(ids));
    }
  });

  it('reads more rounds from a shard that holds most of the items', async () => {
    // Everything in shard 3 but a few: the other shards end at once, shard 3 is read again until the page is full.
    const ids = range(1, 300);
    const { read, reads } = fakeShards(ids, (id) => (id % 50 === 0 ? id % shards : 3));
    const pages = await allPages(read, 100);
    expect(pages.flat()).toEqual(keys(ids));
    expect(pages.map((page) => page.length)).toEqual([100, 100, 100]);
    // No shard is ever asked for more than a page's worth.
    expect(Math.max(...reads.map((entry) => entry.limit))).toBeLessThanOrEqual(100);
  });

  it('never takes an item before every unfinished shard has been read past it', async () => {
    // Shard 0 answers one item per read (as a 1 MB cut would): its small ids must still come first.
    const byShard = [keys([1, 2, 3, 4]), keys([5, 6])];
    const read = async (shard: number, after: string | undefined): Promise<ShardRead<string>> => {
      const rest = (byShard[shard] ?? []).filter((key) => after === undefined || key > after);
      return shard === 0 ? { items: rest.slice(0, 1), more: rest.length > 1 } : { items: rest, more: false };
    };
    const merge = new ShardMerge<string>(2, (key) => key, read);
    expect(await merge.take(5, pageReadSize)).toEqual(keys([1, 2, 3, 4, 5]));
    expect(merge.more).toBe(true);
    expect(await merge.take(5, pageReadSize)).toEqual(keys([6]));
    expect(merge.more).toBe(false);
  });

  it('streams a whole set across takes, keeping what each shard read ahead', async () => {
    const ids = range(1, 1234);
    const { read, reads } = fakeShards(ids);
    const merge = new ShardMerge<string>(shards, (key) => key, read);
    const batches: string[][] = [];
    for (;;) {
      const batch = await merge.take(100, () => 100);
      if (batch.length > 0) batches.push(batch);
      if (batch.length < 100) break;
    }
    expect(batches.flat()).toEqual(keys(ids));
    // Each shard holds 77 ids, read in one Query of 100: 16 Queries for the whole pass.
    expect(reads).toHaveLength(shards);
  });

  it('answers nothing for empty shards, and resumes after a position', async () => {
    const empty = fakeShards([]);
    const merge = new ShardMerge<string>(shards, (key) => key, empty.read);
    expect(await merge.take(10, pageReadSize)).toEqual([]);
    expect(merge.more).toBe(false);
    const { read } = fakeShards(range(1, 40));
    expect(await new ShardMerge<string>(shards, (key) => key, read, idSortKey(33)).take(10, pageReadSize)).toEqual(keys(range(34, 40)));
  });
});

describe('contact shard keys', () => {
  it('places a contact and its index entry in shard id % 16, and an email claim by the lower-cased email', () => {
    expect(contactShards).toBe(16);
    expect(contactKey(7, 35)).toEqual({ pk: 'A#7#contact#3', sk: idSortKey(35) });
    expect(contactOfTypeIndexKey(7, 2, 35)).toEqual({ gsi1pk: 'A#7#contact-type#2#contact#3', gsi1sk: idSortKey(35) });
    expect(contactEmailShardOf('Ada@Example.COM')).toBe(contactEmailShardOf('ada@example.com'));
    expect(contactEmailShardOf('ada@example.com')).toBe(fnv1a('ada@example.com') % 16);
  });

  it('hashes with 32-bit FNV-1a over UTF-8', () => {
    // Published FNV-1a 32-bit test vectors.
    expect(fnv1a('')).toBe(0x811c9dc5);
    expect(fnv1a('a')).toBe(0xe40c292c);
    expect(fnv1a('foobar')).toBe(0xbf9cf968);
  });

  it('spreads emails over every shard', () => {
    const counts = new Array<number>(16).fill(0);
    for (let i = 0; i < 1600; i++) counts[contactEmailShardOf(`user${i}@example.com`)]! += 1;
    expect(Math.min(...counts)).toBeGreaterThan(50);
  });
});
