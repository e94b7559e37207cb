// Lambda for the segments family: wires its routes to its operations.
import { httpHandler } from '../../shared/http/pipeline';
import { list, remove, save, update } from './operations';
import { emailDelete, emailList, emailStore } from './recipient-operations';

export const handler = httpHandler('segments', { list, save, update, delete: remove, emailList, emailStore, emailDelete });
