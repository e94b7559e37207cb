// Lambda for the jobs family (background work started by contact-type deletes, segment saves and
// deletes, and automations set live): wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { details, list } from './operations';

export const handler = httpHandler('jobs', { list, details });
