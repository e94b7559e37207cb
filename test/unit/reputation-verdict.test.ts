// When a send must stop for its reputation: the rates over the mails SES reported on once the
// minimum is reached, and, before it, a send whose bounces or complaints already exceed what the
// limit allows on everything it queued (its rate can then only end over the limit).
import { certainVerdict, reputationVerdict, type ReputationLimits } from '../../shared/feedback/reputation';

const limits: ReputationLimits = { bounceRate: 0.05, complaintRate: 0.001, minDeliveries: 100 };
const none = { delivered: 0, bounces: 0, complaints: 0 };

describe('reputationVerdict (the rates once the minimum is reached)', () => {
  test('waits for the minimum of reported mails', () => {
    expect(reputationVerdict({ delivered: 0, bounces: 99, complaints: 0 }, none, limits)).toBeUndefined();
  });

  test('stops a send over either limit once there are enough mails', () => {
    expect(reputationVerdict({ delivered: 94, bounces: 6, complaints: 0 }, none, limits)).toBe('Paused: 6 of 100 mails bounced (6%, over the 5% limit).');
    expect(reputationVerdict({ delivered: 100, bounces: 0, complaints: 1 }, none, limits)).toBe('Paused: 1 of 100 mails were reported as spam (1%, over the 0.1% limit).');
    expect(reputationVerdict({ delivered: 95, bounces: 5, complaints: 0 }, none, limits)).toBeUndefined();
  });

  test('never judges fewer mails than were handed to SES: deliveries still in the delivery stream\'s buffer do not raise the rate', () => {
    // 400 mails went, 10 bounced at once, 40 deliveries counted so far (the rest wait up to 30 s in the stream).
    expect(reputationVerdict({ delivered: 40, bounces: 10, complaints: 0, triggered: 400 }, none, limits)).toBeUndefined();
    expect(reputationVerdict({ delivered: 40, bounces: 21, complaints: 0, triggered: 400 }, none, limits)).toBe('Paused: 21 of 400 mails bounced (5.25%, over the 5% limit).');
    // Once reported, the reported mails count as before.
    expect(reputationVerdict({ delivered: 94, bounces: 6, complaints: 0, triggered: 90 }, none, limits)).toBe('Paused: 6 of 100 mails bounced (6%, over the 5% limit).');
  });

  test('after a resume, mails handed to SES count from the resume; a base stored before they were kept is judged on reported mails alone', () => {
    const base = { delivered: 10, bounces: 10, complaints: 0, triggered: 100 };
    expect(reputationVerdict({ delivered: 60, bounces: 16, complaints: 0, triggered: 300 }, base, limits)).toBeUndefined();
    const stored = { delivered: 10, bounces: 10, complaints: 0 };
    expect(reputationVerdict({ delivered: 105, bounces: 16, complaints: 0, triggered: 300 }, stored, limits)).toBe('Paused: 6 of 101 mails bounced (5.94%, over the 5% limit).');
  });

  test('judges only what came after the last resume', () => {
    const base = { delivered: 10, bounces: 10, complaints: 0 };
    expect(reputationVerdict({ delivered: 109, bounces: 10, complaints: 0 }, base, limits)).toBeUndefined();
    expect(reputationVerdict({ delivered: 105, bounces: 16, complaints: 0 }, base, limits)).toBe('Paused: 6 of 101 mails bounced (5.94%, over the 5% limit).');
  });
});

describe('certainVerdict (before the minimum, when the outcome is already certain)', () => {
  test('stops a 100-recipient send at its 6th bounce: 6 of any 100 is over 5%', () => {
    expect(certainVerdict({ delivered: 20, bounces: 5, complaints: 0 }, 100, limits)).toBeUndefined();
    expect(certainVerdict({ delivered: 20, bounces: 6, complaints: 0 }, 100, limits)).toBe('Paused: 6 of 26 mails bounced (23.08%, over the 5% limit).');
  });

  test('measures a large send against all it queued, so a few early bounces do not stop it', () => {
    expect(certainVerdict({ delivered: 10, bounces: 40, complaints: 0 }, 1_000, limits)).toBeUndefined();
    expect(certainVerdict({ delivered: 10, bounces: 51, complaints: 0 }, 1_000, limits)).toBe('Paused: 51 of 61 mails bounced (83.61%, over the 5% limit).');
  });

  test('measures a small send against the minimum, so a small send is not stopped by one or two bounces', () => {
    expect(certainVerdict({ delivered: 0, bounces: 5, complaints: 0 }, 20, limits)).toBeUndefined();
    expect(certainVerdict({ delivered: 0, bounces: 6, complaints: 0 }, 20, limits)).toBe('Paused: 6 of 6 mails bounced (100%, over the 5% limit).');
  });

  test('counts complaints the same way', () => {
    expect(certainVerdict({ delivered: 3, bounces: 0, complaints: 1 }, 100, limits)).toBe('Paused: 1 of 3 mails were reported as spam (33.33%, over the 0.1% limit).');
    expect(certainVerdict({ delivered: 3, bounces: 0, complaints: 1 }, 2_000, limits)).toBeUndefined();
  });

  test('says nothing before any mail was reported on', () => {
    expect(certainVerdict(none, 0, limits)).toBeUndefined();
  });
});
