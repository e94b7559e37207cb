// Lambda for the contact-types family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { add, list, remove, update, view } from './operations';

export const handler = httpHandler('contact-types', { list, add, view, update, delete: remove });
