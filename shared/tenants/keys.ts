// Keys of the local tenant stand-ins. An account's own record of its tenant lives on its profile
// (shared/accounts/keys.ts accountKey), so reading an account's tenant is the one GetItem.
import type { Key } from '../table/keys';

/**
 * The stage's one note that SES refused a new tenant for the account's tenant quota
 * (LimitExceededException): until it expires, no dispatch asks SES to make another.
 */
export const tenantLimitKey: Key = { pk: 'SES-TENANT-LIMIT', sk: 'reached' };

/** The local adapter's stand-in for an SES tenant. */
export function localTenantKey(name: string): Key {
  return { pk: 'LOCAL-TENANT', sk: name };
}
