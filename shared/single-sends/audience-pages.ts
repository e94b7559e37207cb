// Who a single send's dispatcher fanned out, page by page: its addresses and contact ids in compact
// items of their own (`single-send-audience#<utr>`), so a later resend can walk exactly the original's
// recipients (the ledger, keyed by recipient, cannot be listed). About 40 bytes a recipient, written
// once per page with the cursor's move: 0.04 write units a mail.
import { currentTime } from '../time';
import { batchWriteAll, putRequest } from '../table/batch';
import { entityPartition, idSortKey } from '../table/keys';
import { queryPageAfter } from '../table/records';

/** One recipient as listed: the address, and its contact (or, for an address that is no contact, its placeholder values). */
export interface AudienceMember {
  email: string;
  contactId: number | null;
  /** Only for an address that is no contact (a segment's stored address): the values it was mailed with. */
  fields?: Record<string, string>;
}

/** Kept as long as the ledger entries a resend checks them against. */
const retentionSeconds = 180 * 24 * 3600;

/** Well below DynamoDB's 400 KB item limit, whatever the page size and however long the addresses. */
const maxItemBytes = 200_000;

function audiencePartition(accountId: number, utr: string): string {
  return entityPartition(accountId, `single-send-audience#${utr}`);
}

type Stored = [email: string, contactId: number | null, fields?: Record<string, string>];

function stored(member: AudienceMember): Stored {
  return member.contactId === null ? [member.email, null, member.fields ?? {}] : [member.email, member.contactId];
}

/**
 * Record one fanned-out page (replayed after a crash it writes the same items again). A page too
 * large for one item is split; each part is keyed by page and part, so the keys sort in fan-out order.
 */
export async function saveAudiencePage(accountId: number, utr: string, page: number, members: readonly AudienceMember[]): Promise<void> {
  if (members.length === 0) return;
  const parts: Stored[][] = [[]];
  let bytes = 0;
  for (const member of members) {
    const entry = stored(member);
    const size = Buffer.byteLength(JSON.stringify(entry));
    if (bytes + size > maxItemBytes && (parts[parts.length - 1] as Stored[]).length > 0) {
      parts.push([]);
      bytes = 0;
    }
    (parts[parts.length - 1] as Stored[]).push(entry);
    bytes += size;
  }
  const expires = Math.floor(currentTime().getTime() / 1000) + retentionSeconds;
  await batchWriteAll(
    parts.map((members, part) => putRequest({ pk: audiencePartition(accountId, utr), sk: `${idSortKey(page)}.${String(part).padStart(4, '0')}`, entity: 'single-send-audience', m: members, expires_at: expires })),
  );
}

/** The next recorded part of a send's audience after position `after` (null: the first); undefined past the last. */
export async function nextAudiencePart(accountId: number, utr: string, after: string | null): Promise<{ members: AudienceMember[]; position: string } | undefined> {
  const page = await queryPageAfter({ partition: audiencePartition(accountId, utr), ...(after === null ? {} : { after }), limit: 1 });
  const item = page.items[0];
  if (!item) return undefined;
  const members = (Array.isArray(item.m) ? (item.m as Stored[]) : []).map(([email, contactId, fields]) => ({
    email: String(email),
    contactId: typeof contactId === 'number' ? contactId : null,
    ...(contactId === null && fields ? { fields } : {}),
  }));
  return { members, position: String(item.sk) };
}
