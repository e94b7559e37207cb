// Keys of contact types (the spec's lists of contacts).
import { type Key, entityKey, entityPartition } from '../table/keys';

// Contact types

export const CONTACT_TYPE = 'contact-type';

export function contactTypeKey(accountId: number, id: number): Key {
  return entityKey(accountId, CONTACT_TYPE, id);
}

export function contactTypePartition(accountId: number): string {
  return entityPartition(accountId, CONTACT_TYPE);
}

/** Set on a contact type while its deletion removes its contacts; no contact may join it then. */
export const contactTypeClosingAttribute = 'closing';

/** Set on a contact type once double opt-in was ever on: only then may it hold pending contacts. */
export const contactTypeOptInEverAttribute = 'opt_in_ever';
