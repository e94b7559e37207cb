// SES as the local sink plays it: which addresses are the mailbox simulator's, the events SES
// publishes for each and for an ordinary address (in SES's EventBridge shape), and what the feedback
// function makes of them.
import { isMailboxSimulatorAddress, simulatorScenarioOf } from '../../shared/mail/mailbox-simulator';
import { feedbackOf } from '../../shared/feedback/ses-feedback';
import { encodeSendRef, type SendRef } from '../../shared/ledger/send-ref';
import { eventBridgeEvent, simulatedEvents, type SimulatedMail } from '../../infra/local/ses-simulator';

const origin = { region: 'eu-west-1', account: '000000000000' };
const ref: SendRef = { kind: 'single-send', accountId: 42, utr: 'utr-1' };
const sentAt = new Date('2026-11-23T05:00:00.000Z');

function mailTo(...destination: string[]): SimulatedMail {
  return {
    messageId: 'ses-123',
    source: 'Acme News <news@acme.example>',
    destination,
    subject: 'Hello',
    // As the deliverer tags every mail (shared/delivery/recipient-mail.ts).
    emailTags: [{ Name: 'send_ref', Value: encodeSendRef(ref) }, { Name: 'markers', Value: 'address' }],
    configurationSetName: 'email-service',
    sentAt,
  };
}

describe('simulator addresses', () => {
  test.each([
    ['success@simulator.amazonses.com', 'success'],
    ['bounce@simulator.amazonses.com', 'bounce'],
    ['bounce+7@simulator.amazonses.com', 'bounce'],
    ['Bounce+Label-x@Simulator.AmazonSES.com', 'bounce'],
    ['ooto+a@simulator.amazonses.com', 'ooto'],
    ['complaint+1+2@simulator.amazonses.com', 'complaint'],
    [' suppressionlist@simulator.amazonses.com ', 'suppressionlist'],
  ])('%s is the simulator scenario %s', (address, scenario) => {
    expect(simulatorScenarioOf(address)).toBe(scenario);
    expect(isMailboxSimulatorAddress(address)).toBe(true);
  });

  test.each(['bounce@example.com', 'someone@simulator.amazonses.com', 'bounce@simulator.amazonses.com.example', 'bounce@sub.simulator.amazonses.com', '@simulator.amazonses.com', 'bounce'])(
    '%s is an ordinary address',
    (address) => {
      expect(simulatorScenarioOf(address)).toBeUndefined();
      expect(isMailboxSimulatorAddress(address)).toBe(false);
    },
  );
});

describe('simulated SES events', () => {
  test('bounce@ is a hard bounce (Permanent/General) in SES shape, with the call tags and SES tags, and no delivery', () => {
    const events = simulatedEvents(mailTo('bounce+3@simulator.amazonses.com'), origin);

    expect(events).toHaveLength(1);
    const [event] = events;
    expect(event).toEqual({
      eventType: 'Bounce',
      mail: {
        timestamp: '2026-11-23T05:00:00.000Z',
        source: 'Acme News <news@acme.example>',
        sourceArn: 'arn:aws:ses:eu-west-1:000000000000:identity/acme.example',
        sendingAccountId: '000000000000',
        messageId: 'ses-123',
        destination: ['bounce+3@simulator.amazonses.com'],
        headersTruncated: false,
        commonHeaders: { from: ['Acme News <news@acme.example>'], to: ['bounce+3@simulator.amazonses.com'], messageId: 'ses-123', subject: 'Hello' },
        tags: {
          'ses:configuration-set': ['email-service'],
          'ses:source-ip': ['127.0.0.1'],
          'ses:from-domain': ['acme.example'],
          'ses:caller-identity': ['local'],
          send_ref: [encodeSendRef(ref)],
          markers: ['address'],
        },
      },
      bounce: {
        bounceType: 'Permanent',
        bounceSubType: 'General',
        bouncedRecipients: [{ emailAddress: 'bounce+3@simulator.amazonses.com', action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' }],
        timestamp: '2026-11-23T05:00:00.500Z',
        feedbackId: expect.stringMatching(/^[0-9a-f]{16}-[0-9a-f-]{36}-000000$/),
        reportingMTA: 'dsn; ses-sink.localhost',
      },
    });
    expect(feedbackOf(event!)).toEqual({ kind: 'hard-bounce', ref, recipients: ['bounce+3@simulator.amazonses.com'], detail: 'General' });
  });

  test('success@ is one delivery, counted for its recipient', () => {
    const events = simulatedEvents(mailTo('success@simulator.amazonses.com'), origin);

    expect(events.map((event) => event.eventType)).toEqual(['Delivery']);
    expect(events[0]?.delivery).toEqual({
      timestamp: '2026-11-23T05:00:00.500Z',
      processingTimeMillis: 500,
      recipients: ['success@simulator.amazonses.com'],
      smtpResponse: '250 2.6.0 Message received',
      reportingMTA: 'ses-sink.localhost',
    });
    expect(feedbackOf(events[0]!)).toEqual({ kind: 'delivered', ref, recipients: ['success@simulator.amazonses.com'] });
  });

  test('complaint@ is delivered, then complained about (abuse)', () => {
    const events = simulatedEvents(mailTo('complaint+9@simulator.amazonses.com'), origin);

    expect(events.map((event) => event.eventType)).toEqual(['Delivery', 'Complaint']);
    expect(events[1]?.complaint).toEqual({
      complainedRecipients: [{ emailAddress: 'complaint+9@simulator.amazonses.com' }],
      timestamp: '2026-11-23T05:00:01.000Z',
      feedbackId: expect.any(String),
      userAgent: 'Amazon SES Mailbox Simulator',
      complaintFeedbackType: 'abuse',
      complaintSubType: null,
      arrivalDate: '2026-11-23T05:00:01.000Z',
    });
    expect(events.map(feedbackOf)).toEqual([
      { kind: 'delivered', ref, recipients: ['complaint+9@simulator.amazonses.com'] },
      { kind: 'complaint', ref, recipients: ['complaint+9@simulator.amazonses.com'], detail: 'abuse' },
    ]);
  });

  test('suppressionlist@ is a hard bounce as for the global suppression list (Permanent/Suppressed)', () => {
    const [event, ...rest] = simulatedEvents(mailTo('suppressionlist@simulator.amazonses.com'), origin);

    expect(rest).toEqual([]);
    expect(event?.bounce).toMatchObject({
      bounceType: 'Permanent',
      bounceSubType: 'Suppressed',
      bouncedRecipients: [{ emailAddress: 'suppressionlist@simulator.amazonses.com', action: 'failed', status: '5.1.1' }],
    });
    expect(feedbackOf(event!)).toEqual({ kind: 'hard-bounce', ref, recipients: ['suppressionlist@simulator.amazonses.com'], detail: 'Suppressed' });
  });

  test('ooto@ is delivered; its auto-reply is a transient bounce, which suppresses nothing', () => {
    const events = simulatedEvents(mailTo('ooto@simulator.amazonses.com'), origin);

    expect(events.map((event) => [event.eventType, event.bounce?.bounceType])).toEqual([
      ['Delivery', undefined],
      ['Bounce', 'Transient'],
    ]);
    expect(events.map((event) => feedbackOf(event).kind)).toEqual(['delivered', 'ignored']);
  });

  test('an ordinary recipient is delivered, as SES delivers it: one delivery, counted for its recipient', () => {
    const events = simulatedEvents(mailTo('Reader <reader@example.com>'), origin);

    expect(events).toEqual([
      {
        eventType: 'Delivery',
        mail: expect.objectContaining({ messageId: 'ses-123', destination: ['Reader <reader@example.com>'], tags: expect.objectContaining({ send_ref: [encodeSendRef(ref)] }) }),
        delivery: {
          timestamp: '2026-11-23T05:00:00.500Z',
          processingTimeMillis: 500,
          recipients: ['reader@example.com'],
          smtpResponse: '250 2.6.0 Message received',
          reportingMTA: 'ses-sink.localhost',
        },
      },
    ]);
    expect(feedbackOf(events[0]!)).toEqual({ kind: 'delivered', ref, recipients: ['reader@example.com'] });
    // A mailbox at the simulator's domain that SES does not document is an ordinary address.
    expect(simulatedEvents(mailTo('someone@simulator.amazonses.com'), origin).map(feedbackOf)).toEqual([
      { kind: 'delivered', ref, recipients: ['someone@simulator.amazonses.com'] },
    ]);
  });

  test('in one mail, each recipient gets its own outcome: one delivery for all the delivered ones', () => {
    const events = simulatedEvents(
      mailTo('reader@example.com', 'Ann <success@simulator.amazonses.com>', 'bounce@simulator.amazonses.com', 'complaint@simulator.amazonses.com'),
      origin,
    );

    expect(events.map((event) => [event.eventType, feedbackOf(event)])).toEqual([
      ['Delivery', { kind: 'delivered', ref, recipients: ['reader@example.com', 'success@simulator.amazonses.com', 'complaint@simulator.amazonses.com'] }],
      ['Bounce', { kind: 'hard-bounce', ref, recipients: ['bounce@simulator.amazonses.com'], detail: 'General' }],
      ['Complaint', { kind: 'complaint', ref, recipients: ['complaint@simulator.amazonses.com'], detail: 'abuse' }],
    ]);
  });

  test('without a configuration set or tags, the events carry SES tags only, and the feedback function ignores them', () => {
    const [event] = simulatedEvents({ ...mailTo('bounce@simulator.amazonses.com'), emailTags: [], configurationSetName: undefined }, origin);

    expect(Object.keys(event!.mail.tags)).toEqual(['ses:source-ip', 'ses:from-domain', 'ses:caller-identity']);
    expect(feedbackOf(event!)).toEqual({ kind: 'ignored', reason: 'no send_ref tag' });
  });
});

describe('EventBridge envelope', () => {
  test('SES events reach EventBridge from aws.ses with their detail type and configuration set', () => {
    const [delivery, complaint] = simulatedEvents(mailTo('complaint@simulator.amazonses.com'), origin);
    const [bounce] = simulatedEvents(mailTo('bounce@simulator.amazonses.com'), origin);

    const envelopes = [delivery!, bounce!, complaint!].map((detail) => eventBridgeEvent(detail, origin));

    expect(envelopes.map((event) => event['detail-type'])).toEqual(['Email Delivered', 'Email Bounced', 'Email Complaint Received']);
    expect(envelopes[1]).toEqual({
      version: '0',
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      'detail-type': 'Email Bounced',
      source: 'aws.ses',
      account: '000000000000',
      time: expect.any(String),
      region: 'eu-west-1',
      resources: ['arn:aws:ses:eu-west-1:000000000000:configuration-set/email-service'],
      detail: bounce,
    });
  });
});
