// Where a SendRef (from a delivery message, an SES event's tag or a recipient's link) finds the counters
// of what it names: the one place the counting side of the port tells the kinds apart (the reputation
// side does in feedback/reputation.ts, apart so a bundle that only counts carries no pause code).
import { automationStepSendable } from '../automations/sendable';
import type { Sendable } from '../ledger/sendable';
import type { SendRef } from '../ledger/send-ref';
import { singleSendSendable } from '../single-sends/sendable';

export function sendableOf(ref: SendRef): Sendable {
  return ref.kind === 'single-send' ? singleSendSendable(ref) : automationStepSendable(ref);
}
