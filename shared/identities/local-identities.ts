// The local adapter of the sending-identity port: SES's identity store played by items in the table.
// A registered domain gets Easy DKIM-shaped tokens and stays pending until `npm run domains:verify`
// (standing in for DNS) marks it verified; address mail keeps the service's own signed link
// (functions/senders/verification.ts), so this adapter only records that an address was registered.
import { randomBytes } from 'node:crypto';
import { getItem, putNewItem, deleteExistingItem, updateExistingItem, type Item } from '../table/records';
import { dkimRecordsOf, IdentityTakenError, type DomainIdentity, type DomainStatus, type IdentityAdapter } from './identities';
import { localIdentityKey } from './keys';

const LOCAL_IDENTITY = 'local-identity';

function toIdentity(domain: string, item: Item): DomainIdentity {
  return { status: item.status as DomainStatus, dkimRecords: dkimRecordsOf(domain, item.tokens as string[]) };
}

async function domainIdentity(domain: string): Promise<DomainIdentity | undefined> {
  const item = await getItem(localIdentityKey(domain));
  return item ? toIdentity(domain, item) : undefined;
}

/** Register a new identity, pending; IdentityTakenError when it exists already (as SES answers). */
async function registerIdentity(identity: string, tokens: string[]): Promise<Item> {
  const item = { ...localIdentityKey(identity), entity: LOCAL_IDENTITY, status: 'pending', tokens };
  if (!(await putNewItem(item))) throw new IdentityTakenError(identity);
  return item;
}

export const localIdentities: IdentityAdapter = {
  async registerDomain(domain) {
    // SES's DKIM tokens are 32 lower-case base32 characters; hex of the same length looks alike.
    const tokens = Array.from({ length: 3 }, () => randomBytes(16).toString('hex'));
    return toIdentity(domain, await registerIdentity(domain, tokens));
  },
  domainIdentity,
  async deleteDomain(domain) {
    await deleteExistingItem(localIdentityKey(domain));
  },
  async registerAddress(address) {
    // SES sends a new mail for an address it knows already; the stand-in just keeps its record.
    await registerIdentity(address, []).catch((error: unknown) => {
      if (!(error instanceof IdentityTakenError)) throw error;
    });
    // The caller sends our own signed link (functions/senders/verification.ts), as before SES identities.
    return 'registered';
  },
  async addressVerified(address) {
    return (await getItem(localIdentityKey(address)))?.status === 'verified';
  },
  async deleteAddress(address) {
    await deleteExistingItem(localIdentityKey(address));
  },
};

/**
 * What DNS does for a deployed domain: mark the local identity verified (`domains:verify`). False when
 * no such identity was registered.
 */
export async function markLocalIdentityVerified(identity: string): Promise<boolean> {
  return (await updateExistingItem(localIdentityKey(identity), { status: 'verified' })) !== undefined;
}
