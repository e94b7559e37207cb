// The service's own sender domain, which no account may take: SES would let anything on or under it
// send as the service (and sign with its DKIM key), so it is refused as a sender domain together with
// the domains above and below it, and as the domain of a sender address.
import { config, optionalEnv, requiredEnv } from '../config';

/**
 * The service's own sender domain: deployed, the stack's senderDomain (whose SES identity the stack
 * makes), given as SENDER_DOMAIN to the functions that register identities; locally, the domain of
 * the system address unless SENDER_DOMAIN says otherwise. Read here rather than in every function's
 * configuration, since only those functions need it.
 */
export function serviceSenderDomain(): string {
  const { runtime, systemFromEmail } = config();
  const domain = runtime === 'aws' ? requiredEnv('SENDER_DOMAIN') : (optionalEnv('SENDER_DOMAIN') ?? systemFromEmail.slice(systemFromEmail.lastIndexOf('@') + 1));
  return domain.trim().toLowerCase();
}

const own = serviceSenderDomain;

/** Whether the domain is the service's sender domain, a subdomain of it or a domain above it. */
export function reservedForService(domain: string): boolean {
  const name = domain.trim().toLowerCase();
  return name === own() || name.endsWith(`.${own()}`) || own().endsWith(`.${name}`);
}

/** Whether the address is on the service's sender domain or a subdomain of it (SES would send it as the service). */
export function onServiceDomain(address: string): boolean {
  const domain = address.slice(address.lastIndexOf('@') + 1).trim().toLowerCase();
  return domain === own() || domain.endsWith(`.${own()}`);
}
