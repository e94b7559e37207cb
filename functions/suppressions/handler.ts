// Lambda for the suppressions family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { list, remove } from './operations';

export const handler = httpHandler('suppressions', { list, delete: remove });
