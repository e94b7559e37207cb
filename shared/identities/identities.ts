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
  /**
   * From the domain's own DKIM status only (SES's DkimAttributes.Status): a domain is ours to use only
   * once its own DNS proves it, never because a verified parent domain covers it.
   */
  status: DomainStatus;
  /**
   * SES's VerifiedForSendingStatus: true also when a verified parent domain covers the domain
   * (inheritance, see `domainAndParents`), so it says whether SES would send from it, not who proved it.
   */
  verifiedForSending: boolean;
  dkimRecords: DkimRecord[];
}

/** An address identity as SES reports it (GetEmailIdentity). */
export interface AddressIdentity {
  /** True after the click on its verification mail, and also whenever a verified domain above it covers it. */
  verifiedForSending: boolean;
}

/** SES's verdict on a domain from its own DKIM status: SUCCESS is verified, FAILED failed, anything else still pending. */
export function domainStatusOf(dkimStatus: string | undefined): DomainStatus {
  if (dkimStatus === 'SUCCESS') return 'verified';
  if (dkimStatus === 'FAILED') return 'failed';
  return 'pending';
}

/**
 * How long SES looks for a new domain's DKIM records (72 hours), with an hour's margin: a domain still
 * pending after that will not be verified without a new registration.
 */
export const domainProofHours = 73;

/** The verification mail of an address registered with SES. */
export interface AddressVerificationMail {
  /** The SES custom verification email template (our branded one; its pages are set on the template). */
  templateName: string;
}

/**
 * What registering an address did: `mailed` when the adapter had the verification mail sent itself
 * (SES's custom verification mail); `registered` when the caller must send its own (the local flow:
 * our signed link, mail in the sink).
 */
export type AddressRegistration = 'mailed' | 'registered';

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
  /** Register an address (again: a repeat sends a new mail) and say who sends its verification mail. */
  registerAddress(address: string, mail: AddressVerificationMail): Promise<AddressRegistration>;
  /**
   * The address's own identity as SES reports it; undefined when SES has none. Its
   * `verifiedForSending` includes inheritance from a verified domain above it, so it never proves on
   * its own that anybody clicked (shared/sender-verification/address-service.ts decides when it counts).
   */
  addressIdentity(address: string): Promise<AddressIdentity | undefined>;
  /** Forget an address identity; forgetting one that does not exist is not an error. */
  deleteAddress(address: string): Promise<void>;
}

/**
 * A domain and each parent of it down to two labels, nearest first: `eu.news.acme.com` gives itself,
 * `news.acme.com` and `acme.com`. SES lets a verified domain send from every one of its subdomains and
 * addresses, at any depth, and reports those identities verified too (identity inheritance: "when you
 * verify a domain identity, you can send email from any subdomain or email address of the verified
 * domain", https://docs.aws.amazon.com/ses/latest/dg/creating-identities.html), so these are the
 * domains whose identity may let SES send from an address on `domain`.
 */
export function domainAndParents(domain: string): string[] {
  const labels = domain.trim().toLowerCase().split('.');
  return labels.slice(0, Math.max(labels.length - 1, 1)).map((_, index) => labels.slice(index).join('.'));
}

/** The three CNAMEs Easy DKIM asks for, from its tokens. */
export function dkimRecordsOf(domain: string, tokens: readonly string[]): DkimRecord[] {
  return tokens.map((token) => ({ name: `${token}._domainkey.${domain}`, type: 'CNAME', value: `${token}.dkim.amazonses.com` }));
}
