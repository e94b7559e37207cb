// Suppression list operations: the addresses SES reported as hard-bounced or complaining (never
// mailed again), listed by kind, and deleted one by one so an address may be mailed again (deployed,
// off SES's account-level suppression list too).
// Global unsubscribes and unsubscribe groups keep their own families, as the spec has them.
import { bounceKinds, listBouncedAddressesPage, type BouncedAddress } from '../../shared/suppressions/bounces';
import { removeBouncedAddress } from '../../shared/feedback/suppression-removal';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { mapPage } from '../../shared/table/pages';
import { email, string, validate } from '../../shared/validation';

/** An entry as the API shows it: the address, why it is suppressed, SES's detail, and since when. */
export interface SuppressionView {
  email: string;
  type: BouncedAddress['kind'];
  reason: string | null;
  created_at: string;
}

function toView(address: BouncedAddress): SuppressionView {
  return { email: address.email_address, type: address.kind, reason: address.detail, created_at: address.first_at };
}

/** What `GET suppressions` reads from its query. */
export const listQuery = { type: string().in(bounceKinds), ...pageQuery() };

/** What `DELETE suppressions/delete` reads from its query. */
export const deleteQuery = { email: email().required() };

export const list = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, listQuery);
  const kind = input.type as BouncedAddress['kind'] | undefined;
  const page = await mapPage(await listBouncedAddressesPage(account.id, kind, pageOf(input)), toView);
  return ok(withNextCursor('suppressions', page));
});

export const remove = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, deleteQuery);
  await removeBouncedAddress(account.id, input.email);
  return ok('Deleted Successfully');
});
