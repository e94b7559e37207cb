// Lambda for the senders family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { details, list, remove, resendMail, save, update } from './operations';

export const handler = httpHandler('senders', { list, save, details, update, delete: remove, resendMail });
