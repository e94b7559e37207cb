// The local adapter of the sending-identity port: SES's identity store played by items in the table.
// A registered domain gets Easy DKIM-shaped tokens and stays pending until `npm run domains:verify`
// (standing in for DNS) marks it verified; address mail keeps the service's own signed link
// (functions/senders/verification.ts), so this adapter only records that an address was registered.
import { randomBytes } from 'node:crypto';
import { standIn } from '../aws-call-watch';
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

const tableIdentities: IdentityAdapter = {
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

/** The SES v2 calls the deployed adapter makes (shared/identities/ses-identities.ts), for a test that watches them. */
function reportedIdentities(adapter: IdentityAdapter): IdentityAdapter {
  const ses = <Result>(operation: string, input: Record<string, unknown>, work: () => Result) => standIn({ service: 'sesv2', operation, input }, work);
  return {
    registerDomain: (domain) => ses('CreateEmailIdentity', { EmailIdentity: domain }, () => adapter.registerDomain(domain)),
    domainIdentity: (domain) => ses('GetEmailIdentity', { EmailIdentity: domain }, () => adapter.domainIdentity(domain)),
    deleteDomain: (domain) => ses('DeleteEmailIdentity', { EmailIdentity: domain }, () => adapter.deleteDomain(domain)),
    registerAddress: (address, mail) =>
      ses('SendCustomVerificationEmail', { EmailAddress: address, TemplateName: mail.templateName }, () => adapter.registerAddress(address, mail)),
    addressVerified: (address) => ses('GetEmailIdentity', { EmailIdentity: address }, () => adapter.addressVerified(address)),
    deleteAddress: (address) => ses('DeleteEmailIdentity', { EmailIdentity: address }, () => adapter.deleteAddress(address)),
  };
}

// A Lambda bundle keeps only the table adapter (see shared/aws-call-watch.ts).
export const localIdentities: IdentityAdapter = process.env.LAMBDA_BUNDLE !== 'true' ? /* @__PURE__ */ reportedIdentities(tableIdentities) : tableIdentities;

/**
 * What DNS does for a deployed domain: mark the local identity verified (`domains:verify`). False when
 * no such identity was registered.
 */
export async function markLocalIdentityVerified(identity: string): Promise<boolean> {
  return (await updateExistingItem(localIdentityKey(identity), { status: 'verified' })) !== undefined;
}
