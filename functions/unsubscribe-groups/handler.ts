// Lambda for the unsubscribe-groups family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { details, list, manuallyAdd, recipientsBulkDelete, recipientsDelete, recipientsList, save, update } from './operations';

export const handler = httpHandler('unsubscribe-groups', {
  list,
  save,
  details,
  update,
  manuallyAdd,
  recipientsList,
  recipientsDelete,
  recipientsBulkDelete,
});
