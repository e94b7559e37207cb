// `contacts/activity`: a contact's mail and consent events, newest first, paged like every list.
import { getContact } from '../../shared/contacts/repository';
import { contactActivityPage } from '../../shared/statistics/contact-activity';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { validate } from '../../shared/validation';
import { contactId } from './operations';

export const activity = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { contact_id: contactId, ...pageQuery() });
  // The activity is the address's (docs/api-notes.md): the contact, not found in this account, is 404.
  const contact = await getContact(account.id, input.contact_id);
  return ok(withNextCursor('activity', await contactActivityPage(account.id, contact.email, pageOf(input))));
});
