// The sending-identity port: the addresses and domains SES may send from. Deployed, SES's own email
// and domain identities (custom verification mail, Easy DKIM); locally, a stand-in kept in the table
// (shared/identities/local-identities.ts). The adapter is chosen here, and only here, from the runtime.
import { config } from '../config';
import type { IdentityAdapter } from './identities';
import { localIdentities } from './local-identities';
import { sesIdentities } from './ses-identities';

export type { AddressRegistration, DkimRecord, DomainIdentity, DomainStatus, IdentityAdapter } from './identities';

/** The adapter for this runtime. */
export function identities(): IdentityAdapter {
  return config().runtime === 'local' ? localIdentities : sesIdentities();
}
