// Whether a sender's From domain is DMARC-aligned for this service: one of the account's verified
// sender domains or a subdomain of one, whose mail SES signs with Easy DKIM under that domain (DMARC's
// default, relaxed alignment accepts a parent's signature). Sending from any other domain stays
// allowed (the spec's flow verifies the address itself), but receivers may refuse it.
import { coveringDomainOf } from './domain-repository';

// The large mailbox providers publish DMARC `p=reject` (or quarantine) for their own domains, so mail
// "from" them sent by anyone else fails DMARC wherever it lands.
const freeMailDomains = new Set([
  'gmail.com',
  'googlemail.com',
  'yahoo.com',
  'ymail.com',
  'aol.com',
  'outlook.com',
  'hotmail.com',
  'live.com',
  'msn.com',
  'icloud.com',
  'me.com',
  'mac.com',
  'gmx.com',
  'gmx.de',
  'gmx.net',
  'web.de',
  'yandex.ru',
  'yandex.com',
  'mail.ru',
  'proton.me',
  'protonmail.com',
  'zoho.com',
]);

export type Alignment = { dmarc_aligned: 1 } | { dmarc_aligned: 0; warning: string };

/** The domain of an address, in lower case (DNS names are case-insensitive). */
export function addressDomain(address: string): string {
  return address.slice(address.lastIndexOf('@') + 1).trim().toLowerCase();
}

/** Whether the address is on one of the account's verified sender domains or a subdomain of one (then SES may send from it unasked). */
export async function onVerifiedDomainOf(accountId: number, address: string): Promise<boolean> {
  return (await coveringDomainOf(accountId, addressDomain(address))) !== undefined;
}

/** The alignment of a From address for the account, with a one-sentence warning when it is not aligned. */
export async function alignmentOf(accountId: number, address: string): Promise<Alignment> {
  const domain = addressDomain(address);
  if (await coveringDomainOf(accountId, domain)) return { dmarc_aligned: 1 };
  if (freeMailDomains.has(domain)) {
    return { dmarc_aligned: 0, warning: `${domain} is a free-mail domain whose DMARC policy lets receivers reject mail sent from it by other services: send from a domain of your own.` };
  }
  return {
    dmarc_aligned: 0,
    warning: `${domain} is not a verified sender domain of this account, so receivers may reject or junk its mail under DMARC: register it under sender-domains and publish its DKIM records.`,
  };
}
