// Lambda for the public pages: reached from links in mail without credentials, each guarded by a signed token.
import { httpHandler } from '../../shared/http/pipeline';
import { followClick } from './click';
import { oneClickUnsubscribe } from './one-click';
import { openPixel } from './open-pixel';
import { changePreferences, showPreferences } from './preferences';
import { confirmSender, showSenderConfirmation } from './sender-confirmation';
import { confirmOptInSubscription, showOptInConfirmation } from './opt-in-confirmation';
import { showSenderVerificationFailed, showSenderVerified } from './sender-verification-result';

export const handler = httpHandler('public-pages', {
  showSenderConfirmation,
  confirmSender,
  showSenderVerified,
  showSenderVerificationFailed,
  openPixel,
  followClick,
  showPreferences,
  changePreferences,
  oneClickUnsubscribe,
  showOptInConfirmation,
  confirmOptInSubscription,
});
