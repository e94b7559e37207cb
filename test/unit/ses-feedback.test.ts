// SES configuration-set events read from EventBridge's shape and classified.
import type { EventBridgeEvent } from 'aws-lambda';
import { feedbackOf, sesRecordOf, type SesEventRecord } from '../../shared/feedback/ses-feedback';

const utr = '0b7c6a43-3d1e-4b0e-9a55-4f5bb0c1c2d3';
const ref = { kind: 'single-send', accountId: 5, utr } as const;
const mail = { messageId: 'm-1', destination: ['ada@example.com'], tags: { send_ref: [`s.5.${utr}`] } };

function eventBridgeEvent(detailType: string, detail: SesEventRecord): EventBridgeEvent<string, SesEventRecord> {
  return { version: '0', id: 'e-1', 'detail-type': detailType, source: 'aws.ses', account: '000000000000', time: '2025-01-01T00:00:00Z', region: 'us-east-1', resources: [], detail };
}

describe('SES feedback', () => {
  test('an EventBridge event carries the record as its detail', () => {
    const record: SesEventRecord = { eventType: 'Delivery', mail, delivery: { recipients: ['ada@example.com'] } };
    expect(sesRecordOf(eventBridgeEvent('Email Delivered', record))).toEqual(record);
  });

  test('an EventBridge event from another source, or without a detail, is refused', () => {
    expect(() => sesRecordOf({ ...eventBridgeEvent('x', {}), source: 'aws.s3' })).toThrow("Not an SES event: source 'aws.s3'");
    expect(() => sesRecordOf({ source: 'aws.ses' })).toThrow("Not an SES event: source 'aws.ses'");
    expect(() => sesRecordOf({})).toThrow("Not an SES event: source 'undefined'");
  });

  test('a delivery names its recipients, and whether its mail went before markers were kept by address (no `markers` tag)', () => {
    const tagged = { ...mail, tags: { ...mail.tags, markers: ['address'] } };
    expect(feedbackOf({ eventType: 'Delivery', mail: tagged, delivery: { recipients: ['ada@example.com'] } })).toEqual({ kind: 'delivered', ref, recipients: ['ada@example.com'] });
    expect(feedbackOf({ eventType: 'Delivery', mail, delivery: { recipients: ['ada@example.com'] } })).toEqual({ kind: 'delivered', ref, recipients: ['ada@example.com'], countedBefore: true });
  });

  test('a permanent bounce is a hard bounce; a transient one is ignored', () => {
    const bounce = { bounceType: 'Permanent', bounceSubType: 'General', bouncedRecipients: [{ emailAddress: 'ada@example.com' }] };
    expect(feedbackOf({ eventType: 'Bounce', mail, bounce })).toEqual({ kind: 'hard-bounce', ref, recipients: ['ada@example.com'], detail: 'General' });
    expect(feedbackOf({ eventType: 'Bounce', mail, bounce: { ...bounce, bounceType: 'Transient' } })).toEqual({ kind: 'ignored', reason: 'Transient bounce' });
  });

  test('a complaint names the complaining recipients (also in the older notificationType form)', () => {
    const complaint = { complaintFeedbackType: 'abuse', complainedRecipients: [{ emailAddress: 'ada@example.com' }] };
    const expected = { kind: 'complaint', ref, recipients: ['ada@example.com'], detail: 'abuse' };
    expect(feedbackOf({ eventType: 'Complaint', mail, complaint })).toEqual(expected);
    expect(feedbackOf({ notificationType: 'Complaint', mail, complaint })).toEqual(expected);
  });

  test('opens and mail without our tag are ignored', () => {
    expect(feedbackOf({ eventType: 'Open', mail })).toEqual({ kind: 'ignored', reason: 'Open event' });
    expect(feedbackOf({ eventType: 'Delivery', mail: { ...mail, tags: {} } })).toEqual({ kind: 'ignored', reason: 'no send_ref tag' });
    expect(feedbackOf({ eventType: 'Delivery', mail: { ...mail, tags: { send_ref: ['nonsense'] } } }).kind).toBe('ignored');
  });
});
