// Sender domain operations: list, save (Easy DKIM records to publish), details (status refreshed from
// the identity port) and delete.
import { ValidationError } from '../../shared/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { ok } from '../../shared/http/reply';
import { listSenderDomains, type ClaimRefusal } from '../../shared/identities/domain-repository';
import { refreshSenderDomain, registerSenderDomain, removeSenderDomain } from '../../shared/sender-verification/domain-service';
import { string, validate } from '../../shared/validation';

/** A DNS name of two labels or more, each 1-63 letters, digits or inner hyphens, ending in a letters-only TLD. */
const domainPattern = /^(?=.{1,253}$)(?:[A-Za-z0-9](?:[A-Za-z0-9-]{0,61}[A-Za-z0-9])?\.)+[A-Za-z]{2,63}$/;

/** The domain a route reads (the OpenAPI document describes it from here too). */
export const domainFields = {
  domain: string().required().max(253).regex(domainPattern).message('regex', 'The domain field must be a valid domain name.'),
};

export const takenMessage = 'The domain has already been taken.';
export const heldByAnotherMessage = 'The domain is already registered by another account.';
export const underAnotherMessage = 'The domain is a subdomain of a domain registered by another account.';
export const aboveAnotherMessage = 'The domain has a subdomain verified by another account.';
export const reservedMessage = "The domain is reserved for this service's own mail.";

const refusals: Readonly<Record<ClaimRefusal, string>> = {
  'already-yours': takenMessage,
  'held-by-another': heldByAnotherMessage,
  'under-another': underAnotherMessage,
  'above-another': aboveAnotherMessage,
  reserved: reservedMessage,
};

/** The validated domain, in lower case: DNS names are case-insensitive, and one domain has one claim. */
function domainOf(fields: Record<string, unknown>): string {
  return validate(fields, domainFields).domain.toLowerCase();
}

export const list = accountOperation(async ({ account }) => ok({ senderDomains: await listSenderDomains(account.id) }));

export const save = accountOperation(async ({ account, request }) => {
  const registered = await registerSenderDomain(account.id, domainOf(request.fields));
  if (typeof registered === 'string') throw ValidationError.of('domain', refusals[registered]);
  const { domain, status, dkim_records } = registered;
  return ok({ domain, status, dkim_records });
});

export const details = accountOperation(async ({ account, request }) =>
  ok({ senderDomain: await refreshSenderDomain(account.id, domainOf(request.query)) }),
);

export const remove = accountOperation(async ({ account, request }) => {
  await removeSenderDomain(account.id, domainOf(request.query));
  return ok('Deleted Successfully');
});
