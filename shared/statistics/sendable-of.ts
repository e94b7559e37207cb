// The one place that tells the kinds of sendable apart: a SendRef (from a delivery message, an SES
// event's tag or a recipient's link) to the implementation of the port for what can be sent.
import { automationStepSendable } from '../automations/sendable';
import type { Sendable } from '../ledger/sendable';
import type { SendRef } from '../ledger/send-ref';
import { singleSendSendable } from '../single-sends/sendable';

export function sendableOf(ref: SendRef): Sendable {
  return ref.kind === 'single-send' ? singleSendSendable(ref) : automationStepSendable(ref);
}
