// Names one thing that mails recipients (a single send, or one step of an automation) in a compact
// text form that fits signed tokens, ledger keys and SES message tags.

export type SendRef =
  | { kind: 'single-send'; accountId: number; utr: string }
  | { kind: 'automation-step'; accountId: number; automationUtr: string; stepUtr: string };

/** The SES message tag carrying the encoded reference: delivery, bounce and complaint events bring it back. */
export const sendRefTag = 'send_ref';

/** The SES message tag of a mail of an A/B test's share: its subject's index (SES's click events bring it back). */
export const abVariantTag = 'ab_variant';

/**
 * The SES message tag saying where the mail's event markers are kept: `address`, in the address's
 * partition (ledger/keys.ts). Its events can have been counted only there, so counting them needs no
 * look at the layout before; an event of a mail without it may have been counted in that layout.
 */
export const markerLayoutTag = 'markers';
export const markersByAddress = 'address';

// SES message tag values allow only [A-Za-z0-9_.@-]: '.' separates the parts, and a utr never holds one.
const separator = '.';
const partPattern = /^[A-Za-z0-9_@-]+$/;

function assertPart(part: string, what: string): void {
  if (!partPattern.test(part)) throw new Error(`A send reference's ${what} must match ${partPattern.source}, got '${part}'`);
}

/** `s.<accountId>.<utr>` for a single send, `a.<accountId>.<automationUtr>.<stepUtr>` for an automation step. */
export function encodeSendRef(ref: SendRef): string {
  if (!Number.isSafeInteger(ref.accountId) || ref.accountId <= 0) throw new Error(`Invalid account id ${ref.accountId} in a send reference`);
  if (ref.kind === 'single-send') {
    assertPart(ref.utr, 'utr');
    return ['s', ref.accountId, ref.utr].join(separator);
  }
  assertPart(ref.automationUtr, 'automation utr');
  assertPart(ref.stepUtr, 'step utr');
  return ['a', ref.accountId, ref.automationUtr, ref.stepUtr].join(separator);
}

/** The reference `encodeSendRef` produced; throws on any other text. */
export function decodeSendRef(text: string): SendRef {
  const parts = text.split(separator);
  const [kind, accountText] = parts;
  const accountId = Number(accountText);
  const wellFormed = /^[1-9]\d*$/.test(accountText ?? '') && Number.isSafeInteger(accountId) && parts.slice(2).every((part) => partPattern.test(part));
  if (wellFormed && kind === 's' && parts.length === 3) return { kind: 'single-send', accountId, utr: parts[2] as string };
  if (wellFormed && kind === 'a' && parts.length === 4) {
    return { kind: 'automation-step', accountId, automationUtr: parts[2] as string, stepUtr: parts[3] as string };
  }
  throw new Error(`Not a send reference: '${text}'`);
}

/** Whether two references name the same send or step. */
export function sameSendRef(a: SendRef, b: SendRef): boolean {
  return encodeSendRef(a) === encodeSendRef(b);
}
