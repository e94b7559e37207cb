// Lambda for the single-sends family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { bulkDelete, create, details, duplicate, list, remove, resume, stats, update } from './operations';
import { resend } from './resend';

export const handler = httpHandler('single-sends', { list, create, duplicate, details, stats, update, delete: remove, bulkDelete, resume, resend });
