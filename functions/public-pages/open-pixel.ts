// The open-tracking pixel: a 1x1 transparent GIF for every request, and an open counted when its
// token is one this service signed: a person's, or a machine's (statistics/engagement-rules.ts).
import { publicOperation } from '../../shared/http/pipeline';
import { raw } from '../../shared/http/reply';
import { describeError, log } from '../../shared/log';
import { encodeSendRef } from '../../shared/ledger/send-ref';
import type { RecipientClaims } from '../../shared/public-links/recipient-links';
import { machineOpenRule } from '../../shared/statistics/engagement-rules';
import { recordMachineOpen } from '../../shared/statistics/event-counts';
import { emitWebhookEvent } from '../../shared/webhook-delivery/events';
import { admitOpen, countRecipientEvent, readRecipientLink } from './recipient-link';

/**
 * The smallest transparent GIF (43 bytes): GIF89a header, a 1x1 screen with a two-colour table, a
 * graphic control extension marking colour 0 transparent, one image whose single pixel is colour 0.
 */
export const transparentGif = Buffer.from([
  0x47, 0x49, 0x46, 0x38, 0x39, 0x61, // "GIF89a"
  0x01, 0x00, 0x01, 0x00, 0x80, 0x00, 0x00, // 1x1, global colour table of 2 entries
  0x00, 0x00, 0x00, 0xff, 0xff, 0xff, // colours 0 (black) and 1 (white)
  0x21, 0xf9, 0x04, 0x01, 0x00, 0x00, 0x00, 0x00, // graphic control: colour 0 is transparent
  0x2c, 0x00, 0x00, 0x00, 0x00, 0x01, 0x00, 0x01, 0x00, 0x00, // image at 0,0, 1x1
  0x02, 0x02, 0x44, 0x01, 0x00, // LZW: clear, pixel 0, end
  0x3b, // trailer
]);

const pixelHeaders = {
  'content-type': 'image/gif',
  // Each view must reach us to be counted: no browser, proxy or CDN may keep a copy.
  'cache-control': 'no-store, no-cache, must-revalidate, max-age=0',
  pragma: 'no-cache',
  expires: '0',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'no-referrer',
};

/**
 * Count an open: a person's as any recipient event; a machine's (Apple's privacy proxy, a scanner) in
 * `machine_opens` alone, so the people's counts and their once-per-recipient markers never see it.
 * Either way the webhooks hear of it, saying which it was. A failure to count is logged, never thrown.
 */
async function countOpen(claims: RecipientClaims, machine: boolean, requestId: string): Promise<void> {
  if (!machine) return countRecipientEvent(claims, 'open', requestId);
  try {
    await recordMachineOpen(claims.ref);
  } catch (error) {
    log.error('machine open not counted', { requestId, send: encodeSendRef(claims.ref), ...describeError(error) });
  }
  await emitWebhookEvent({ event: 'open', ref: claims.ref, email: claims.email, machine: true });
}

/**
 * The same image whatever the token, so the pixel reveals nothing about which tokens are valid.
 * The count is awaited (a Lambda may be frozen once it answers) but can never fail the image.
 * Repeated views of one mail by one recipient within the hour read one item and write nothing.
 */
export const openPixel = publicOperation(async ({ request }) => {
  const claims = readRecipientLink(request.query.token, request.requestId);
  const machine = machineOpenRule({ userAgent: request.headers['user-agent'] }) !== undefined;
  if (claims && (await admitOpen(claims, request.requestId, machine))) await countOpen(claims, machine, request.requestId);
  return raw({ statusCode: 200, headers: { ...pixelHeaders }, body: transparentGif.toString('base64'), isBase64Encoded: true });
});
