// Lambda for the global-unsubscribes family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { bulkDelete, list, remove, save } from './operations';

export const handler = httpHandler('global-unsubscribes', { list, save, delete: remove, bulkDelete });
