// The compact send reference: round trips, SES-tag-safe text, and refusal of anything else.
import { decodeSendRef, encodeSendRef, sameSendRef, type SendRef } from '../../shared/ledger/send-ref';

const utr = '0b7c6a43-3d1e-4b0e-9a55-4f5bb0c1c2d3';
const stepUtr = '9f8e7d6c-5b4a-4392-8170-6f5e4d3c2b1a';

describe('send references', () => {
  test('a single send encodes as s.<account>.<utr> and decodes back', () => {
    const ref: SendRef = { kind: 'single-send', accountId: 42, utr };
    expect(encodeSendRef(ref)).toBe(`s.42.${utr}`);
    expect(decodeSendRef(encodeSendRef(ref))).toEqual(ref);
  });

  test('an automation step encodes as a.<account>.<automation>.<step> and decodes back', () => {
    const ref: SendRef = { kind: 'automation-step', accountId: 7, automationUtr: utr, stepUtr };
    expect(encodeSendRef(ref)).toBe(`a.7.${utr}.${stepUtr}`);
    expect(decodeSendRef(encodeSendRef(ref))).toEqual(ref);
  });

  test('the text uses only characters SES allows in message tag values', () => {
    const text = encodeSendRef({ kind: 'automation-step', accountId: 123456, automationUtr: utr, stepUtr });
    expect(text).toMatch(/^[A-Za-z0-9_.@-]+$/);
  });

  test.each([
    '',
    's',
    's.42',
    `x.42.${utr}`,
    `s.0.${utr}`,
    `s.-1.${utr}`,
    `s.04.${utr}`,
    `s.4.2.${utr}`,
    `a.7.${utr}`,
    `s.42.${utr}#x`,
    `s.99999999999999999999.${utr}`,
  ])('%j is refused', (text) => {
    expect(() => decodeSendRef(text)).toThrow('Not a send reference');
  });

  test('parts that would break the format cannot be encoded', () => {
    expect(() => encodeSendRef({ kind: 'single-send', accountId: 1, utr: 'a.b' })).toThrow();
    expect(() => encodeSendRef({ kind: 'single-send', accountId: 0, utr })).toThrow();
    expect(() => encodeSendRef({ kind: 'automation-step', accountId: 1, automationUtr: utr, stepUtr: '' })).toThrow();
  });

  test('sameSendRef compares what the references name', () => {
    expect(sameSendRef({ kind: 'single-send', accountId: 1, utr }, { kind: 'single-send', accountId: 1, utr })).toBe(true);
    expect(sameSendRef({ kind: 'single-send', accountId: 1, utr }, { kind: 'single-send', accountId: 2, utr })).toBe(false);
  });
});
