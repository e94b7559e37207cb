// Lambda for the notification-recipients family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { bulkDelete, list, remove, save } from './operations';

export const handler = httpHandler('notification-recipients', { list, save, delete: remove, bulkDelete });
