// The local adapter of the sending-identity port: SES's identity store played by items in the table,
// answering as SES does. A registered domain gets Easy DKIM-shaped tokens and stays pending until
// `npm run domains:verify` (standing in for DNS) marks it verified; address mail keeps the service's own
// signed link (functions/senders/verification.ts), so an address is only recorded as registered.
// Like SES, an identity under a verified domain identity, at any depth, is reported verified for
// sending (inheritance: "when you verify a domain identity, you can send email from any subdomain or
// email address of the verified domain without having to verify each one individually",
// https://docs.aws.amazon.com/ses/latest/dg/creating-identities.html), while a domain's own DKIM status
// stays its own. `addOutsideIdentity` makes an identity outside every account's claim, as an operator
// does in the SES console (the service's own sender domain, a verified test address in the sandbox).
import { randomBytes } from 'node:crypto';
import { standIn } from '../aws-call-watch';
import { getItem, getItems, putNewItem, deleteExistingItem, updateExistingItem, type Item } from '../table/records';
import { dkimRecordsOf, domainAndParents, IdentityTakenError, type DomainIdentity, type DomainStatus, type IdentityAdapter } from './identities';
import { localIdentityKey } from './keys';

const LOCAL_IDENTITY = 'local-identity';

/** The domains whose verified identity SES lets an identity inherit: an address's domain and its parents, a domain's parents. */
function inheritableFrom(identity: string): string[] {
  const at = identity.lastIndexOf('@');
  return at >= 0 ? domainAndParents(identity.slice(at + 1)) : domainAndParents(identity).slice(1);
}

/** GetEmailIdentity's VerifiedForSendingStatus: verified itself, or covered by a verified domain identity above it. */
async function verifiedForSending(identity: string, item: Item): Promise<boolean> {
  if (item.status === 'verified') return true;
  const above = await getItems(inheritableFrom(identity).map(localIdentityKey));
  return above.some((parent) => parent.status === 'verified');
}

async function toDomainIdentity(domain: string, item: Item): Promise<DomainIdentity> {
  return { status: item.status as DomainStatus, verifiedForSending: await verifiedForSending(domain, item), dkimRecords: dkimRecordsOf(domain, item.tokens as string[]) };
}

/** SES's DKIM tokens are 32 lower-case base32 characters; hex of the same length looks alike. */
const newTokens = (): string[] => Array.from({ length: 3 }, () => randomBytes(16).toString('hex'));

/** Identities are named as SES names them: without regard to case. */
const nameOf = (identity: string): string => identity.trim().toLowerCase();

/** Register a new identity, pending; IdentityTakenError when it exists already (as SES answers). */
async function registerIdentity(identity: string, tokens: string[]): Promise<Item> {
  const item = { ...localIdentityKey(nameOf(identity)), entity: LOCAL_IDENTITY, status: 'pending', tokens };
  if (!(await putNewItem(item))) throw new IdentityTakenError(identity);
  return item;
}

const tableIdentities: IdentityAdapter = {
  async registerDomain(domain) {
    return toDomainIdentity(domain, await registerIdentity(domain, newTokens()));
  },
  async domainIdentity(domain) {
    const item = await getItem(localIdentityKey(nameOf(domain)));
    return item ? toDomainIdentity(domain, item) : undefined;
  },
  async deleteDomain(domain) {
    await deleteExistingItem(localIdentityKey(nameOf(domain)));
  },
  async registerAddress(address) {
    // SES sends a new mail for an address it knows already; the stand-in just keeps its record.
    await registerIdentity(address, []).catch((error: unknown) => {
      if (!(error instanceof IdentityTakenError)) throw error;
    });
    // The caller sends our own signed link (functions/senders/verification.ts), as before SES identities.
    return 'registered';
  },
  async addressIdentity(address) {
    const item = await getItem(localIdentityKey(nameOf(address)));
    return item ? { verifiedForSending: await verifiedForSending(nameOf(address), item) } : undefined;
  },
  async deleteAddress(address) {
    await deleteExistingItem(localIdentityKey(nameOf(address)));
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
    addressIdentity: (address) => ses('GetEmailIdentity', { EmailIdentity: address }, () => adapter.addressIdentity(address)),
    deleteAddress: (address) => ses('DeleteEmailIdentity', { EmailIdentity: address }, () => adapter.deleteAddress(address)),
  };
}

// A Lambda bundle keeps only the table adapter (see shared/aws-call-watch.ts).
export const localIdentities: IdentityAdapter = process.env.LAMBDA_BUNDLE !== 'true' ? /* @__PURE__ */ reportedIdentities(tableIdentities) : tableIdentities;

/**
 * What DNS does for a deployed domain, or SES's verification click for an address: mark the local
 * identity verified (`domains:verify`). False when no such identity was registered.
 */
export async function markLocalIdentityVerified(identity: string): Promise<boolean> {
  return (await updateExistingItem(localIdentityKey(nameOf(identity)), { status: 'verified' })) !== undefined;
}

/**
 * An identity made outside the service, verified unless said otherwise: the stack's own sender domain,
 * an operator's verified test address, a domain added by hand in the SES console. No account claims
 * it. Made again, it is left as it is (SES refuses a second identity of one name).
 */
export async function addOutsideIdentity(identity: string, status: DomainStatus = 'verified'): Promise<void> {
  const name = nameOf(identity);
  await putNewItem({ ...localIdentityKey(name), entity: LOCAL_IDENTITY, status, tokens: name.includes('@') ? [] : newTokens() });
}
