// Lambda for the webhooks family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { list, remove, save } from './operations';

export const handler = httpHandler('webhooks', { list, save, delete: remove });
