// Sender domains: every table access for them. An account's record and the domain's one claim (keyed
// by the domain alone) are written and deleted in one transaction, so two accounts can never both
// hold a domain, and a domain is only ever verified for the account that registered it.
import { currentTime, isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { conditionHeld, deleteItem, getItem, getItems, queryAll, queryPageAfter, unlessConditionFails, updateItem, withoutKeys, type Item } from '../table/records';
import { cancellationCodes, transactWrite } from '../table/transactions';
import { domainAndParents, type DkimRecord, type DomainIdentity, type DomainStatus } from './identities';
import {
  SENDER_DOMAIN,
  domainClaimKey,
  domainClaimPrefix,
  domainTreeKey,
  pendingIndexKeys,
  pendingIndexPartition,
  senderDomainKey,
  senderDomainPartition,
  unprovenSinceKey,
} from './keys';

export interface SenderDomain {
  domain: string;
  status: DomainStatus;
  dkim_records: DkimRecord[];
  created_at: string;
}

/**
 * Why a domain could not be claimed: the account has it already, another account holds it or a
 * domain above it, another account has verified a subdomain of it, or it is the service's own.
 */
export type ClaimRefusal = 'already-yours' | 'held-by-another' | 'under-another' | 'above-another' | 'reserved';

/** A domain some account holds, as the claims and records say. */
export interface HeldDomain {
  domain: string;
  holder: number;
  status: DomainStatus;
  /** Since when its holder has held it without proving it (kept across the holder's deletes). */
  unprovenSince: string;
}

/** How long the start of an unproven claim is remembered after the account last saved the domain. */
const unprovenMemoryDays = 30;

function toSenderDomain(item: Item): SenderDomain {
  const record = withoutKeys<SenderDomain>(item);
  return { domain: record.domain, status: record.status, dkim_records: record.dkim_records ?? [], created_at: record.created_at };
}

/** The account's domains in name order (one Query: an account has a handful). */
export async function listSenderDomains(accountId: number): Promise<SenderDomain[]> {
  return (await queryAll({ partition: senderDomainPartition(accountId) })).map(toSenderDomain);
}

/** One domain of the account; RecordNotFound when the account has not registered it. */
export async function getSenderDomain(accountId: number, domain: string): Promise<SenderDomain> {
  const item = await getItem(senderDomainKey(accountId, domain));
  if (!item) throw new RecordNotFound(SENDER_DOMAIN, domain);
  return toSenderDomain(item);
}

/**
 * The account's verified domain that covers `domain`: the domain itself or its nearest parent that is
 * verified (SES sends from every subdomain of a verified domain, and signs it with that domain's DKIM
 * key, which DMARC's relaxed alignment accepts). The nearest verified domain decides: a subdomain that
 * another account has verified is that account's, and covers nothing of this one. Claims nobody has
 * verified (pending, failed) are passed over, so an unproven claim on a subdomain blocks nobody.
 * Undefined when no verified domain covers it.
 */
export async function coveringDomainOf(accountId: number, domain: string): Promise<string | undefined> {
  // Two batch reads whatever the depth (an address may have over a hundred labels): the claims, then
  // the claimed domains' records.
  const candidates = domainAndParents(domain);
  const claims = await getItems(candidates.map(domainClaimKey));
  const holders = new Map(claims.map((claim) => [String(claim.pk).slice(domainClaimPrefix.length), Number(claim.account_id)]));
  const claimed = candidates.filter((candidate) => holders.has(candidate));
  const records = await getItems(claimed.map((candidate) => senderDomainKey(holders.get(candidate) as number, candidate)));
  const verified = new Set(records.filter((record) => record.status === 'verified').map((record) => String(record.domain)));
  const nearest = claimed.find((candidate) => verified.has(candidate));
  return nearest !== undefined && holders.get(nearest) === accountId ? nearest : undefined;
}

/** The claims and records of the domains, in the order given; unclaimed ones are left out. */
async function heldDomains(domains: readonly string[]): Promise<HeldDomain[]> {
  const claims = await getItems(domains.map(domainClaimKey));
  const holders = new Map(claims.map((claim) => [String(claim.pk).slice(domainClaimPrefix.length), Number(claim.account_id)]));
  const claimed = domains.filter((domain) => holders.has(domain));
  const records = new Map((await getItems(claimed.map((domain) => senderDomainKey(holders.get(domain) as number, domain)))).map((record) => [String(record.domain), record]));
  return claimed.flatMap((domain) => {
    const record = records.get(domain);
    if (!record) return [];
    return [{ domain, holder: holders.get(domain) as number, status: record.status as DomainStatus, unprovenSince: String(record.unproven_since ?? record.created_at) }];
  });
}

/** The held domains above `domain` (its parents down to two labels), nearest first. */
export function heldDomainsAbove(domain: string): Promise<HeldDomain[]> {
  return heldDomains(domainAndParents(domain).slice(1));
}

/** The held subdomains of `domain`, at any depth (one Query of its part of the claims' tree, then the records). */
export async function heldDomainsBelow(domain: string): Promise<HeldDomain[]> {
  const { pk, sk } = domainTreeKey(domain);
  const entries = await queryAll({ partition: pk, beginsWith: sk });
  return heldDomains(entries.map((entry) => String(entry.domain)).filter((found) => found !== domain));
}

/** The held domain, or undefined when no account holds it. */
export async function heldDomain(domain: string): Promise<HeldDomain | undefined> {
  return (await heldDomains([domain]))[0];
}

/** The account holding a domain, or undefined when none does. */
export async function domainHolder(domain: string): Promise<number | undefined> {
  const claim = await getItem(domainClaimKey(domain));
  return claim ? Number(claim.account_id) : undefined;
}

/** Claim a domain for the account and store its pending record; the refusal when it cannot. */
export async function claimSenderDomain(accountId: number, domain: string): Promise<SenderDomain | ClaimRefusal> {
  // Two saves of one domain at once may both be cancelled as conflicting; the next try decides.
  for (let attempt = 1; ; attempt++) {
    try {
      return await tryClaim(accountId, domain);
    } catch (error) {
      if (attempt >= 3 || !cancellationCodes(error)?.includes('TransactionConflict')) throw error;
    }
  }
}

/** Since when the account has held the domain unproven: as remembered from an earlier save, else now. */
async function unprovenSince(accountId: number, domain: string, now: string): Promise<string> {
  const remembered = await getItem(unprovenSinceKey(domain, accountId));
  // DynamoDB deletes expired items only eventually: an expired one counts as gone.
  if (!remembered || Number(remembered.expires_at) <= currentTime().getTime() / 1000) return now;
  return String(remembered.since);
}

/**
 * A new pending record of the account's domain and the items that go with it: the claim, the domain's
 * place in the claims' tree, and when the account started holding it unproven (remembered for
 * `unprovenMemoryDays` after this save, across deletes).
 */
async function newClaim(accountId: number, domain: string): Promise<{ record: SenderDomain; claimItem: Item; recordItem: Item; treeItem: Item; sinceItem: Item }> {
  const now = isoTimestamp();
  const since = await unprovenSince(accountId, domain, now);
  const record: SenderDomain = { domain, status: 'pending', dkim_records: [], created_at: now };
  return {
    record,
    claimItem: { ...domainClaimKey(domain), entity: 'domain-claim', account_id: accountId, created_at: now },
    recordItem: {
      ...senderDomainKey(accountId, domain),
      entity: SENDER_DOMAIN,
      ...record,
      user_id: accountId,
      updated_at: now,
      unproven_since: since,
      // Listed for the periodic check while pending (recordDomainIdentity takes it off).
      ...pendingIndexKeys('sender-domain', now, accountId, domain),
    },
    treeItem: { ...domainTreeKey(domain), entity: 'domain-tree', account_id: accountId, domain },
    sinceItem: {
      ...unprovenSinceKey(domain, accountId),
      entity: 'domain-unproven-since',
      since,
      expires_at: Math.floor(currentTime().getTime() / 1000) + unprovenMemoryDays * 86_400,
    },
  };
}

async function tryClaim(accountId: number, domain: string): Promise<SenderDomain | ClaimRefusal> {
  const { record, claimItem, recordItem, treeItem, sinceItem } = await newClaim(accountId, domain);
  const claimed = await conditionHeld(
    transactWrite([
      { Put: { Item: claimItem, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { Item: recordItem, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { Item: treeItem } },
      { Put: { Item: sinceItem } },
    ]),
  );
  if (claimed) return record;
  return (await domainHolder(domain)) === accountId ? 'already-yours' : 'held-by-another';
}

/**
 * Hand another account's claim that was never proved to this account, in one transaction: the
 * holder's record goes (only while it is still not verified), the claim changes hands (only while
 * `holder` still has it) and this account's pending record is stored. Undefined when either changed
 * meanwhile (the holder's domain was verified, or someone else took it): the domain is then held.
 */
export async function takeOverSenderDomain(accountId: number, domain: string, holder: number): Promise<SenderDomain | undefined> {
  const { record, claimItem, recordItem, treeItem, sinceItem } = await newClaim(accountId, domain);
  try {
    await transactWrite([
      {
        Delete: {
          Key: senderDomainKey(holder, domain),
          ConditionExpression: 'attribute_exists(pk) AND #status <> :verified',
          ExpressionAttributeNames: { '#status': 'status' },
          ExpressionAttributeValues: { ':verified': 'verified' },
        },
      },
      {
        Put: {
          Item: claimItem,
          ConditionExpression: '#account = :holder',
          ExpressionAttributeNames: { '#account': 'account_id' },
          ExpressionAttributeValues: { ':holder': holder },
        },
      },
      { Put: { Item: recordItem, ConditionExpression: 'attribute_not_exists(pk)' } },
      { Put: { Item: treeItem } },
      { Put: { Item: sinceItem } },
    ]);
    return record;
  } catch (error) {
    const codes = cancellationCodes(error);
    if (codes?.includes('ConditionalCheckFailed') || codes?.includes('TransactionConflict')) return undefined;
    throw error;
  }
}

/**
 * Store what the identity port says of the domain now; the record as it is after. A domain that is no
 * longer pending leaves the periodic check's index (a failed one waits for a new save).
 */
export async function recordDomainIdentity(accountId: number, domain: string, identity: DomainIdentity): Promise<SenderDomain> {
  const pending = identity.status === 'pending';
  const result = await unlessConditionFails(
    updateItem({
      Key: senderDomainKey(accountId, domain),
      UpdateExpression: `SET #status = :status, #records = :records, #updated = :now${pending ? '' : ' REMOVE gsi1pk, gsi1sk'}`,
      ConditionExpression: 'attribute_exists(pk)',
      ExpressionAttributeNames: { '#status': 'status', '#records': 'dkim_records', '#updated': 'updated_at' },
      ExpressionAttributeValues: { ':status': identity.status, ':records': identity.dkimRecords, ':now': isoTimestamp() },
      ReturnValues: 'ALL_NEW',
    }),
  );
  if (!result) throw new RecordNotFound(SENDER_DOMAIN, domain);
  // Proved: a later delete and save starts a new time to prove it.
  if (identity.status === 'verified') await deleteItem({ Key: unprovenSinceKey(domain, accountId) });
  return toSenderDomain(result.Attributes as Item);
}

/** A record waiting on SES, as the periodic check's index lists it. */
export interface PendingEntry {
  accountId: number;
  /** The entry's position in the index: the next read starts after it. */
  position: string;
}

/**
 * One page of the pending domains registered after `since` (an ISO time), oldest first, from just
 * after `after` (a position of the previous page). One Query on gsi1: never a Scan.
 */
export async function pendingDomainsPage(since: string, after: string | undefined, limit: number): Promise<{ entries: (PendingEntry & { domain: string })[]; last: boolean }> {
  const page = await queryPageAfter({ partition: pendingIndexPartition('sender-domain'), index: 'gsi1', after: after ?? since, limit });
  const entries = page.items.map((item) => ({ accountId: Number(item.user_id), domain: String(item.domain), position: String(item.gsi1sk) }));
  return { entries, last: page.next === undefined };
}

/**
 * Delete the account's record, its claim and its place in the claims' tree together (when it started
 * holding the domain unproven is kept); RecordNotFound when the account has no such domain.
 */
export async function releaseSenderDomain(accountId: number, domain: string): Promise<void> {
  const released = await conditionHeld(
    transactWrite([
      { Delete: { Key: senderDomainKey(accountId, domain), ConditionExpression: 'attribute_exists(pk)' } },
      {
        Delete: {
          Key: domainClaimKey(domain),
          ConditionExpression: '#account = :account',
          ExpressionAttributeNames: { '#account': 'account_id' },
          ExpressionAttributeValues: { ':account': accountId },
        },
      },
      {
        Delete: {
          Key: domainTreeKey(domain),
          // Claims made before the tree have no place in it.
          ConditionExpression: 'attribute_not_exists(pk) OR #account = :account',
          ExpressionAttributeNames: { '#account': 'account_id' },
          ExpressionAttributeValues: { ':account': accountId },
        },
      },
    ]),
  );
  if (!released) throw new RecordNotFound(SENDER_DOMAIN, domain);
}
