// Lambda for the contacts family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { csvSample, importStatus, uploadCsv } from './csv-operations';
import { add, bulkDelete, details, list, remove, update } from './operations';
import { bulkUpsert } from './upsert-operations';
import { activity } from './activity-operations';
import { resendConfirmation } from './confirmation-operations';

export const handler = httpHandler('contacts', { list, add, details, update, delete: remove, bulkDelete, bulkUpsert, csvSample, uploadCsv, importStatus, activity, resendConfirmation });
