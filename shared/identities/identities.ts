// What the sending-identity port speaks of: domain and address identities and the DKIM records to publish.

/** A domain identity's state: `pending` until its DKIM records are found in DNS, `failed` when SES gave up. */
export type DomainStatus = 'pending' | 'verified' | 'failed';

/** One DNS record to publish: Easy DKIM asks for three CNAMEs. */
export interface DkimRecord {
  name: string;
  type: 'CNAME';
  value: string;
}

export interface DomainIdentity {
  status: DomainStatus;
  dkimRecords: DkimRecord[];
}

/** Where the custom verification mail's page sends the reader after a click. */
export interface AddressVerificationMail {
  /** The SES custom verification email template (our branded one). */
  templateName: string;
}

/**
 * The identity exists already, outside any account's claim: the service's own sender domain, or one
 * made by hand. It is never handed to an account, which could otherwise send as the service.
 */
export class IdentityTakenError extends Error {
  constructor(readonly identity: string) {
    super(`The SES identity ${identity} exists already`);
    this.name = 'IdentityTakenError';
  }
}

export interface IdentityAdapter {
  /** Register a new domain identity: the DKIM records to publish. IdentityTakenError when it exists already. */
  registerDomain(domain: string): Promise<DomainIdentity>;
  /** The domain identity as it stands now; undefined when there is none. */
  domainIdentity(domain: string): Promise<DomainIdentity | undefined>;
  /** Forget a domain identity; forgetting one that does not exist is not an error. */
  deleteDomain(domain: string): Promise<void>;
  /** Register an address and have its verification mail sent. */
  registerAddress(address: string, mail: AddressVerificationMail): Promise<void>;
  /** Whether SES may send from the address (verified itself, or through its verified domain). */
  addressVerified(address: string): Promise<boolean>;
}

/** The three CNAMEs Easy DKIM asks for, from its tokens. */
export function dkimRecordsOf(domain: string, tokens: readonly string[]): DkimRecord[] {
  return tokens.map((token) => ({ name: `${token}._domainkey.${domain}`, type: 'CNAME', value: `${token}.dkim.amazonses.com` }));
}
