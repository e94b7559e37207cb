// Lambda for the custom-fields family (reserved and custom contact fields): wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { list, remove, reserved, save } from './operations';

export const handler = httpHandler('custom-fields', { reserved, list, save, delete: remove });
