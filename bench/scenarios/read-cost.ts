// Scenario 2 (read cost): DynamoDB items read per recipient when a single send's audience is paged
// through as the dispatcher does (nextAudiencePage at the dispatcher's page size, each page from the
// cursor the last one left), for a contact type and for a segment of the same size, in one run.
// Items are counted by middleware on the document client: ScannedCount of each Query and the items
// each Get and BatchGet returned. BENCH_READ_COST_RECIPIENTS (20000) scales the audiences.
import { createAccount } from '../../shared/accounts/repository';
import { addContactType } from '../../shared/contact-types/repository';
import { importContactRows } from '../../shared/audience/contact-service';
import type { ImportRow } from '../../shared/audience/import-lookup';
import { addSegment } from '../../shared/segments/repository';
import { nextAudiencePage } from '../../shared/single-send-runs/recipients';
import { sendingSettings } from '../../shared/delivery/settings';
import type { RecipientEntry } from '../../shared/single-sends/record';
import { db } from '../../shared/table/client';
import { details, log, num, round, row } from '../lib/report';

type Output = Record<string, unknown>;

/** Items one response carries as read: a Query's ScannedCount, a BatchGet's responses, a Get's item. */
function itemsRead(output: Output): number {
  if (typeof output.ScannedCount === 'number') return output.ScannedCount;
  if (typeof output.Count === 'number') return output.Count;
  const responses = output.Responses;
  if (Array.isArray(responses)) return responses.filter((response) => (response as Output | undefined)?.Item).length;
  if (responses && typeof responses === 'object') return Object.values(responses as Record<string, unknown[]>).reduce((sum, items) => sum + items.length, 0);
  if ('Item' in output) return output.Item ? 1 : 0;
  return 0;
}

interface ReadCost {
  recipients: number;
  pages: number;
  items: number;
  commands: number;
  ms: number;
}

/** Page through one audience entry from the start, counting every item read on the way. */
async function readCost(accountId: number, entry: RecipientEntry, pageSize: number): Promise<ReadCost> {
  const cost: ReadCost = { recipients: 0, pages: 0, items: 0, commands: 0, ms: 0 };
  const name = `benchReadCost${entry.table}${entry.id}`;
  const client = db();
  client.middlewareStack.add(
    (next) => async (args) => {
      const result = await next(args);
      cost.commands++;
      cost.items += itemsRead((result.output ?? {}) as unknown as Output);
      return result;
    },
    { step: 'initialize', name },
  );
  const started = performance.now();
  try {
    let after: number | string | null = null;
    for (;;) {
      const page = await nextAudiencePage(accountId, entry, after, pageSize);
      cost.pages++;
      if (!page) break;
      cost.recipients += page.recipients.length;
      // The cursor as the dispatch item stores it.
      after = JSON.parse(JSON.stringify(page.last)) as number | string;
    }
  } finally {
    client.middlewareStack.remove(name);
  }
  cost.ms = performance.now() - started;
  return cost;
}

export async function scenarioReadCost(): Promise<void> {
  const scenario = '7 send read cost';
  const size = Math.round(num('BENCH_READ_COST_RECIPIENTS', 20_000));
  const pageSize = sendingSettings().dispatchPageSize;

  // Setup (not measured): a fresh account, a segment matching every contact of its type, then
  // `size` contacts through the CSV import's write path, which also fills the segment.
  log(`read cost: importing ${size} contacts into a type and a segment`);
  const setupStarted = performance.now();
  const { account_id: accountId } = await createAccount('Read cost bench');
  const type = await addContactType(accountId, 'Read cost');
  const segment = await addSegment(accountId, {
    contact_type_id: type.id,
    segment_name: 'Read cost',
    conditions: [{ field: 'city', fieldType: 'text', operator: 'is', value: 'Springfield' }],
  });
  const emails = Array.from({ length: size }, (_, i) => `read-cost-${String(i).padStart(7, '0')}@example.com`);
  const chunks = Array.from({ length: Math.ceil(size / 500) }, (_, i) => emails.slice(i * 500, i * 500 + 500));
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      for (let chunk = chunks.shift(); chunk; chunk = chunks.shift()) {
        const rows: ImportRow[] = chunk.map((email, index) => ({
          line: index + 2,
          fields: { contact_type_id: type.id, first_name: 'Read', last_name: 'Cost', email, alt_email: null, country: '233', state: '', city: 'Springfield', address_line1: '', address_line2: '', state_province_region: '', postal_code: '' },
          customValues: {},
        }));
        await importContactRows(accountId, type.id, rows, new Set(['first_name', 'last_name', 'email', 'country', 'city']));
      }
    }),
  );
  const setupSeconds = round((performance.now() - setupStarted) / 1000);

  // Measured: each audience paged through once, as one send's dispatch pages it.
  const results: Record<string, ReadCost> = {};
  for (const [label, entry] of [
    ['type', { id: String(type.id), table: 'contacts_' }],
    ['segment', { id: String(segment.id), table: 'segments_' }],
  ] as const) {
    log(`read cost: paging the ${label} audience in pages of ${pageSize}`);
    const cost = await readCost(accountId, entry, pageSize);
    results[label] = cost;
    if (cost.recipients !== size) throw new Error(`the ${label} audience gave ${cost.recipients} recipients, not ${size}`);
    row(scenario, `${label} send of ${size}, items read per recipient`, round(cost.items / cost.recipients, 3), 'items', { op: '<=', limit: 1.2 });
  }
  details.read_cost = {
    recipients: size,
    page_size: pageSize,
    setup_seconds: setupSeconds,
    ...Object.fromEntries(Object.entries(results).map(([label, cost]) => [label, { ...cost, ms: round(cost.ms), items_per_recipient: round(cost.items / cost.recipients, 3) }])),
  };
}
