// Lambda for the templates family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { listDynamicContent, listTemplates, previewImageFile } from './operations';

export const handler = httpHandler('templates', { listTemplates, listDynamicContent, previewImageFile });
