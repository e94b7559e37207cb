// Lambda for the sender-domains family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { details, list, remove, save } from './operations';

export const handler = httpHandler('sender-domains', { list, save, details, delete: remove });
