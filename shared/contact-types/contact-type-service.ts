// Deleting a contact type: the cascade over its contacts and the segments built on it.
import { deleteContactsOfType } from '../contacts/contact-service';
import { deleteSegment, listSegmentRulesOfContactType } from '../segments/repository';
import { RecordNotFound } from '../table/errors';
import { CONTACT_TYPE } from './keys';
import { closeContactType, removeContactType } from './repository';

/**
 * Delete a contact type, all its contacts and the segments built on it (a segment matches the
 * contacts of one type; without the type it could never match anyone again). The type is first
 * marked closing, so no contact can join it while its contacts are removed; it is deleted last, so a
 * run cut short leaves it in place and deleting it again finishes the job.
 */
export async function deleteContactType(accountId: number, id: number): Promise<void> {
  if (!(await closeContactType(accountId, id))) throw new RecordNotFound(CONTACT_TYPE, id);
  await deleteContactsOfType(accountId, id);
  for (const segment of await listSegmentRulesOfContactType(accountId, id)) {
    try {
      await deleteSegment(accountId, segment.id);
    } catch (error) {
      // Deleted meanwhile by its own delete: the same end.
      if (!(error instanceof RecordNotFound)) throw error;
    }
  }
  if (!(await removeContactType(accountId, id))) throw new RecordNotFound(CONTACT_TYPE, id);
}
