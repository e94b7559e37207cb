// Lambda for the public pages: reached from links in mail without credentials, each guarded by a signed token.
import { httpHandler } from '../../shared/http/pipeline';
import { confirmSender } from './sender-confirmation';

export const handler = httpHandler('public-pages', { confirmSender });
