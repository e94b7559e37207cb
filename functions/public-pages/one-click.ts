// RFC 8058 one-click unsubscribe: the `List-Unsubscribe` URL that mail providers POST to (no cookies,
// no page) when the reader presses their Unsubscribe button.
import { RecordNotFound } from '../../shared/table/errors';
import { publicOperation } from '../../shared/http/pipeline';
import { raw, type Reply } from '../../shared/http/reply';
import { applyPreference } from './recipient-choices';
import { linkLimitReply, readRecipientLink } from './recipient-link';

const textHeaders = {
  'content-type': 'text/plain; charset=utf-8',
  'cache-control': 'no-store',
  'referrer-policy': 'no-referrer',
  'x-content-type-options': 'nosniff',
};

function textReply(statusCode: number, text: string): Reply {
  return raw({ statusCode, headers: { ...textHeaders }, body: `${text}\n` });
}

/**
 * Leaves the send's unsubscribe group when the link names one (what the reader of a mail about one
 * topic expects), else unsubscribes the address from all the account's mail. Idempotent: a repeated
 * POST answers the same. The body (`List-Unsubscribe=One-Click`) is never read: the token alone says
 * who and what, a POST is never sent by link prefetching, and receivers send the body urlencoded,
 * as multipart or otherwise, so no encoding may stop the unsubscribe.
 */
export const oneClickUnsubscribe = publicOperation(async ({ request }) => {
  const claims = readRecipientLink(request.query.token, request.requestId);
  if (!claims) return textReply(400, 'This unsubscribe link is not valid.');
  const limited = await linkLimitReply(claims, 'text');
  if (limited) return limited;
  if (claims.groupId === null) {
    await applyPreference(claims, 'unsubscribe-all', request.requestId);
    return textReply(200, 'You are unsubscribed.');
  }
  try {
    await applyPreference(claims, 'leave-group', request.requestId, claims.groupId);
  } catch (error) {
    if (!(error instanceof RecordNotFound)) throw error;
    // The group is gone: an unsubscribe must never silently do nothing, so leave everything instead.
    await applyPreference(claims, 'unsubscribe-all', request.requestId);
  }
  return textReply(200, 'You are unsubscribed.');
}, { readBody: false });
