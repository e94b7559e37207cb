// What reading a send's audience costs in DynamoDB items: the dispatcher pages through a contact type
// or a segment and resumes from a stored cursor, and each recipient item must be read about once
// (not the segment again from its start for every page). Items read are counted by middleware on the
// document client: ScannedCount of each Query, the items of each Get and BatchGet.
import type { SQSEvent } from 'aws-lambda';
import { addContactType } from '../../shared/contact-types/repository';
import { importContactRows } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-lookup';
import { configureLocalQueue, registerLocalConsumer, stopLocalQueues, localQueueIdle } from '../../shared/queue/local-queue';
import { contactsOfTypePartition } from '../../shared/contacts/keys';
import { segmentRecipientPartition } from '../../shared/segments/keys';
import { applyMembershipChanges } from '../../shared/segments/recipient-changes';
import { addSegment } from '../../shared/segments/repository';
import { recipientsPerMessage, type DeliveryRecipient } from '../../shared/delivery/delivery-message';
import { dispatchSingleSend } from '../../shared/single-send-runs/dispatch';
import { nextAudiencePage } from '../../shared/single-send-runs/recipients';
import { getDispatchState } from '../../shared/single-sends/progress';
import type { RecipientEntry } from '../../shared/single-sends/record';
import { db } from '../../shared/table/client';
import { newAccount } from '../support/accounts';
import { contactFields, readySend } from '../support/sending';

/** Recipients of each audience: a contact type of 1,500 contacts and a segment of 1,500 entries (several pages of the dispatcher's 500, so resuming is exercised; the bench reads 20,000). */
const size = 1_500;
/** Of the type's contacts, this many live elsewhere (outside the segment); the segment has as many manual entries instead. */
const manualCount = 100;
/** Items one whole pass may read, per recipient. */
const goal = 1.2;

// Counting -----------------------------------------------------------------------------------------

interface Reads {
  /** Items read by every command. */
  items: number;
  /** Items read by Queries of the audience's own partitions (the contact type's index shards, the segment's recipients). */
  audienceItems: number;
  commands: number;
}

type Output = Record<string, unknown>;

function itemsIn(output: Output): number {
  if (typeof output.ScannedCount === 'number') return output.ScannedCount;
  if (typeof output.Count === 'number') return output.Count;
  const responses = output.Responses;
  if (Array.isArray(responses)) return responses.filter((response) => (response as Output | undefined)?.Item).length;
  if (responses && typeof responses === 'object') return Object.values(responses as Record<string, unknown[]>).reduce((sum, items) => sum + items.length, 0);
  if ('Item' in output) return output.Item ? 1 : 0;
  return 0;
}

/** The partition key value a Query names (marshalled or not), for telling audience reads apart. */
function queriedPartition(input: Output): string {
  const value = (input.ExpressionAttributeValues as Record<string, unknown> | undefined)?.[':pk'];
  if (typeof value === 'string') return value;
  return String((value as { S?: string } | undefined)?.S ?? '');
}

let counterId = 0;

/** Count the items read while `run` runs. */
async function counted<T>(isAudience: (partition: string) => boolean, run: () => Promise<T>): Promise<{ reads: Reads; result: T }> {
  const reads: Reads = { items: 0, audienceItems: 0, commands: 0 };
  const name = `countReads${++counterId}`;
  const client = db();
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      const items = itemsIn((result.output ?? {}) as unknown as Output);
      reads.commands++;
      reads.items += items;
      if (isAudience(queriedPartition(args.input as Output))) reads.audienceItems += items;
      return result;
    },
    { step: 'initialize', name },
  );
  try {
    return { reads, result: await run() };
  } finally {
    client.middlewareStack.remove(name);
  }
}

// The audience ---------------------------------------------------------------------------------------

interface World {
  accountId: number;
  typeEntry: RecipientEntry;
  segmentEntry: RecipientEntry;
  /** The type's contact addresses, in contact id order. */
  typeAddresses: string[];
  /** The segment's addresses, lower-cased, in key (address) order. */
  segmentAddresses: string[];
}

let world: World;

/** Addresses whose order differs from their id order, some in mixed case (segments key them lower-cased). */
function address(tag: string, i: number, kind: string): string {
  const scrambled = String((i * 7919) % 10_007).padStart(5, '0');
  const local = `${scrambled}-${kind}-${tag}-${i}`;
  return i % 5 === 0 ? `${local.toUpperCase()}@Example.COM` : `${local}@example.com`;
}

async function buildWorld(): Promise<World> {
  const { account_id: accountId } = await newAccount();
  const type = await addContactType(accountId, 'Readers');
  // The segment exists before the contacts, so the import's membership sync fills it.
  const segment = await addSegment(accountId, {
    contact_type_id: type.id,
    segment_name: 'Arlington',
    conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'Arlington' }],
  });
  const tag = Math.random().toString(36).slice(2, 8);
  const emails = Array.from({ length: size }, (_, i) => address(tag, i, 'reader'));
  // The last `manualCount` contacts are elsewhere, so not in the segment.
  const inSegment = (i: number) => i < size - manualCount;
  for (let start = 0; start < size; start += 500) {
    const rows: ImportRow[] = emails.slice(start, start + 500).map((email, offset) => ({
      line: start + offset + 2,
      fields: contactFields(type.id, email, { city: inSegment(start + offset) ? 'Arlington' : 'Springfield' }),
      customValues: {},
    }));
    const result = await importContactRows(accountId, type.id, rows, new Set(['first_name', 'last_name', 'email', 'city', 'state', 'address_line1', 'postal_code']));
    expect(result.imported).toBe(rows.length);
  }
  const manual = Array.from({ length: manualCount }, (_, i) => address(tag, i, 'manual'));
  await applyMembershipChanges(
    accountId,
    segment.id,
    manual.map((email) => ({ kind: 'manual-in', entry: { first_name: 'Manual', last_name: 'Entry', email } })),
  );
  const segmentAddresses = [...emails.filter((_, i) => inSegment(i)), ...manual].map((email) => email.toLowerCase()).sort();
  return {
    accountId,
    typeEntry: { id: String(type.id), table: 'contacts_' },
    segmentEntry: { id: String(segment.id), table: 'segments_' },
    typeAddresses: emails,
    segmentAddresses,
  };
}

/** Whether a queried partition is one of the entry's own: a shard of the segment's recipients, or a shard of the type's index. */
function audiencePartitionOf(entry: RecipientEntry): (partition: string) => boolean {
  if (entry.table === 'segments_') {
    const prefix = `${segmentRecipientPartition(world.accountId, Number(entry.id))}#`;
    return (queried) => queried.startsWith(prefix);
  }
  const prefix = `${contactsOfTypePartition(world.accountId, Number(entry.id))}#`;
  return (queried) => queried.startsWith(prefix);
}

/** Page through one entry as the dispatcher does: every call starts from the cursor the last one left. */
async function readWholeEntry(entry: RecipientEntry, pageSize: number): Promise<{ recipients: DeliveryRecipient[]; pages: number; cursors: (number | string)[] }> {
  const recipients: DeliveryRecipient[] = [];
  const cursors: (number | string)[] = [];
  let after: number | string | null = null;
  let pages = 0;
  for (;;) {
    const page = await nextAudiencePage(world.accountId, entry, after, pageSize);
    pages++;
    if (!page) break;
    expect(page.recipients.length).toBeLessThanOrEqual(pageSize);
    recipients.push(...page.recipients);
    // The cursor as the dispatch item stores it: a plain number or string.
    after = JSON.parse(JSON.stringify(page.last)) as number | string;
    cursors.push(after);
  }
  return { recipients, pages, cursors };
}

function expectedAddresses(entry: RecipientEntry): string[] {
  return entry.table === 'segments_' ? world.segmentAddresses : world.typeAddresses.map((email) => email.toLowerCase());
}

/** Every recipient exactly once, in the entry's order (contact id for types, address for segments). */
function expectEachOnceInOrder(entry: RecipientEntry, recipients: readonly DeliveryRecipient[]): void {
  const got = recipients.map((recipient) => recipient.email.toLowerCase());
  expect(new Set(got).size).toBe(got.length);
  expect(got.length).toBe(size);
  expect(got).toEqual(expectedAddresses(entry));
  if (entry.table === 'contacts_') {
    const ids = recipients.map((recipient) => recipient.contactId as number);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
  }
}

beforeAll(async () => {
  world = await buildWorld();
}, 240_000);

// Reading the audience page by page ---------------------------------------------------------------------

const cases: { name: string; entry: () => RecipientEntry; pageSize: number }[] = [
  { name: 'segment, pages of 100', entry: () => world.segmentEntry, pageSize: 100 },
  { name: 'segment, pages of 500 (the dispatcher default)', entry: () => world.segmentEntry, pageSize: 500 },
  { name: 'contact type, pages of 500 (the dispatcher default)', entry: () => world.typeEntry, pageSize: 500 },
];

describe('reading a send audience page after page from the stored cursor', () => {
  test.each(cases)(`$name: every recipient once, in order, reading at most ${goal} items per recipient`, async ({ entry: entryOf, pageSize }) => {
    // Prepare
    const entry = entryOf();

    // Act
    const { reads, result } = await counted(audiencePartitionOf(entry), () => readWholeEntry(entry, pageSize));

    // Assess
    const perRecipient = reads.items / size;
    console.log(`${entry.table}${entry.id} pages of ${pageSize}: ${reads.items} items read (${reads.audienceItems} from the audience's partitions) in ${reads.commands} commands over ${result.pages} calls for ${size} recipients = ${perRecipient.toFixed(2)} items/recipient`);
    expectEachOnceInOrder(entry, result.recipients);
    // One more call than pages of recipients finds the entry exhausted.
    expect(result.pages).toBe(Math.ceil(size / pageSize) + 1);
    expect(reads.audienceItems).toBeGreaterThanOrEqual(size);
    // Allowance: one item per call beyond the goal (a look-ahead, a reference-data lookup).
    expect(reads.items).toBeLessThanOrEqual(goal * size + result.pages);
  }, 120_000);

  test('a contact type in pages of 100: every recipient once, in order; the sharded index reads ahead a bounded amount per page', async () => {
    // Prepare
    const entry = world.typeEntry;

    // Act
    const { reads, result } = await counted(audiencePartitionOf(entry), () => readWholeEntry(entry, 100));

    // Assess: 16 shards read an even share plus 2 each (shard-merge.ts), so at most 16 x 3 items ahead per page.
    console.log(`${entry.table}${entry.id} pages of 100: ${reads.items} items read in ${reads.commands} commands = ${(reads.items / size).toFixed(2)} items/recipient`);
    expectEachOnceInOrder(entry, result.recipients);
    expect(reads.items).toBeLessThanOrEqual(size + 16 * 3 * result.pages);
  }, 120_000);

  test('a segment resumed from a cursor taken mid-way, and from the cursor of a recipient that has left since', async () => {
    // Prepare: the first 7 pages of 100 as one dispatcher run left them.
    const entry = world.segmentEntry;
    const first = await readWholeEntry(entry, 100);
    const stored = first.cursors[6] as string;
    const left = world.segmentAddresses.indexOf(stored);
    expect(left).toBe(699);

    // Act: resume from that cursor; and from a cursor naming an address no longer in the segment.
    const resumed: DeliveryRecipient[] = [];
    const { reads } = await counted(audiencePartitionOf(entry), async () => {
      let after: string | number | null = stored;
      for (let page = await nextAudiencePage(world.accountId, entry, after, 100); page; page = await nextAudiencePage(world.accountId, entry, after, 100)) {
        resumed.push(...page.recipients);
        after = page.last;
      }
    });
    const gone = `${stored.slice(0, -'@example.com'.length)}~gone@example.com`;
    const afterGone = await nextAudiencePage(world.accountId, entry, gone, 5);
    // A cursor as older dispatchers stored it: the shown address lower-cased, untrimmed.
    const afterUntrimmed = await nextAudiencePage(world.accountId, entry, ` ${stored}`, 5);

    // Assess: exactly the rest, read once.
    expect(resumed.map((recipient) => recipient.email.toLowerCase())).toEqual(world.segmentAddresses.slice(700));
    expect(reads.items).toBeLessThanOrEqual(goal * (size - 700) + 30);
    const next = world.segmentAddresses.filter((email) => email > gone).slice(0, 5);
    expect(afterGone?.recipients.map((recipient) => recipient.email.toLowerCase())).toEqual(next);
    expect(afterUntrimmed?.recipients.map((recipient) => recipient.email.toLowerCase())).toEqual(world.segmentAddresses.slice(700, 705));
  }, 120_000);
});

// The dispatcher itself, stopping after every page and resuming from its stored cursor -------------------

describe('the dispatcher resuming from its stored cursor after every page', () => {
  const fannedOut: DeliveryRecipient[][] = [];
  const batchIds: string[] = [];
  let unregister: () => void;

  beforeAll(() => {
    configureLocalQueue({ redeliveryDelayMs: 50, log: () => undefined });
    // Record what is fanned out instead of mailing it.
    unregister = registerLocalConsumer('deliveries', async (event: SQSEvent) => {
      for (const record of event.Records) {
        const body = JSON.parse(record.body) as { batchId: string; recipients: DeliveryRecipient[] };
        batchIds.push(body.batchId);
        fannedOut.push(body.recipients);
      }
    });
  });

  afterAll(async () => {
    unregister();
    await stopLocalQueues();
  });

  beforeEach(() => {
    fannedOut.length = 0;
    batchIds.length = 0;
  });

  test.each([
    { name: 'segment', entry: () => world.segmentEntry },
    { name: 'contact type', entry: () => world.typeEntry },
  ])(`$name send in pages of 500: each recipient fanned out once, in order, at most ${goal} audience items read per recipient`, async ({ entry: entryOf }) => {
    // Prepare
    const entry = entryOf();
    const send = await readySend(world.accountId, { recipient_id: [entry] });
    const pageSize = 500;

    // Act: one run per page, each resuming from the cursor the previous one stored.
    const cursors: (number | string | null)[] = [];
    const { reads } = await counted(audiencePartitionOf(entry), async () => {
      for (let run = 0; run < 100; run++) {
        const outcome = await dispatchSingleSend(world.accountId, send.utr, { pageSize, shouldYield: () => true });
        cursors.push((await getDispatchState(world.accountId, send.utr))?.cursor.after ?? null);
        if (outcome !== 'yielded') return outcome;
      }
      throw new Error('the dispatch did not finish in 100 runs');
    });
    await localQueueIdle();

    // Assess: the first page is one delivery message's worth (the send's first mail goes sooner), then pages of 500.
    const pages = 1 + Math.ceil((size - recipientsPerMessage) / pageSize);
    expect(cursors).toHaveLength(pages + 1);
    expect(cursors.at(-1)).toBeNull();
    const byBatch = batchIds.map((id, index) => ({ id, recipients: fannedOut[index] as DeliveryRecipient[] }));
    expect(byBatch.filter((batch) => batch.id.startsWith('0.')).map((batch) => batch.recipients.length)).toEqual([recipientsPerMessage]);
    const order = (id: string) => id.split('.').map(Number) as [number, number];
    byBatch.sort((a, b) => order(a.id)[0] - order(b.id)[0] || order(a.id)[1] - order(b.id)[1]);
    expectEachOnceInOrder(entry, byBatch.flatMap((batch) => batch.recipients));
    console.log(`dispatch of ${entry.table}${entry.id}: ${reads.audienceItems} audience items, ${reads.items} items in all, read in ${cursors.length} runs`);
    expect(reads.audienceItems).toBeLessThanOrEqual(goal * size);
  }, 180_000);
});
