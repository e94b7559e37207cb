// What SES publishes for a mail the local sink accepted, built in the shape SES gives its events to
// EventBridge (the deployed stack's route to the ses-events function, infra/stack/event-wiring.ts).
// Pure: the sink (ses-sink.ts) feeds the result to the function (ses-event-feed.ts).
//
// An ordinary recipient is delivered: one Delivery event, as SES publishes for every mail the
// receiving server accepts. SES's mailbox simulator addresses get what the SES Developer Guide's
// "mailbox simulator" page says (each address also as `+label`):
//   success@          delivered: a Delivery event.
//   bounce@           rejected with SMTP 550 5.1.1 "Unknown User": a hard bounce (Permanent/General), no Delivery.
//   ooto@             delivered, then an out-of-office auto-reply, which SES reports as a Transient bounce.
//   complaint@        delivered, then marked as spam: Delivery, then a Complaint (feedback type abuse).
//   suppressionlist@  a hard bounce "as if the address were on the global suppression list": Permanent/Suppressed.
import { randomUUID } from 'node:crypto';
import type { EventBridgeEvent } from 'aws-lambda';
import { simulatorScenarioOf, type SimulatorScenario } from '../../shared/mail/mailbox-simulator';

/** The mail a SendEmail call handed the sink, with what SES would know of the call. */
export interface SimulatedMail {
  messageId: string;
  /** FromEmailAddress, as given. */
  source: string;
  /** Every recipient: To, Cc and Bcc. */
  destination: string[];
  subject: string;
  /** The call's EmailTags. */
  emailTags: { Name: string; Value: string }[];
  configurationSetName?: string;
  sentAt: Date;
}

/** Where the mail is published from (EventBridge's envelope and SES's ARNs). */
export interface SimulatorOrigin {
  region: string;
  account: string;
}

export interface SesRecipientBounce {
  emailAddress: string;
  action?: string;
  status?: string;
  diagnosticCode?: string;
}

/** An SES event as EventBridge's `detail` (and SNS's message) carries it: the documented fields. */
export interface SesEventDetail {
  eventType: 'Delivery' | 'Bounce' | 'Complaint';
  mail: {
    timestamp: string;
    source: string;
    sourceArn: string;
    sendingAccountId: string;
    messageId: string;
    destination: string[];
    headersTruncated: boolean;
    commonHeaders: { from: string[]; to: string[]; messageId: string; subject: string };
    tags: Record<string, string[]>;
  };
  delivery?: { timestamp: string; processingTimeMillis: number; recipients: string[]; smtpResponse: string; reportingMTA: string };
  bounce?: {
    bounceType: 'Permanent' | 'Transient';
    bounceSubType: string;
    bouncedRecipients: SesRecipientBounce[];
    timestamp: string;
    feedbackId: string;
    reportingMTA: string;
  };
  complaint?: {
    complainedRecipients: { emailAddress: string }[];
    timestamp: string;
    feedbackId: string;
    userAgent: string;
    complaintFeedbackType: string;
    complaintSubType: null;
    arrivalDate: string;
  };
}

export type SesEventBridgeEvent = EventBridgeEvent<string, SesEventDetail>;

/** EventBridge's detail type for each SES event type (the rule in infra/stack/event-wiring.ts matches these). */
export const detailTypes: Record<SesEventDetail['eventType'], string> = {
  Delivery: 'Email Delivered',
  Bounce: 'Email Bounced',
  Complaint: 'Email Complaint Received',
};

const reportingMta = 'ses-sink.localhost';

/** The bounced recipient's DSN fields, as the simulator reports them. */
const bounceRecipient: Record<'bounce' | 'suppressionlist' | 'ooto', Omit<SesRecipientBounce, 'emailAddress'>> = {
  bounce: { action: 'failed', status: '5.1.1', diagnosticCode: 'smtp; 550 5.1.1 user unknown' },
  suppressionlist: {
    action: 'failed',
    status: '5.1.1',
    diagnosticCode: 'Amazon SES has suppressed sending to this address because it has a recent history of bouncing as an invalid address.',
  },
  ooto: {},
};

const bounceKind: Record<'bounce' | 'suppressionlist' | 'ooto', { bounceType: 'Permanent' | 'Transient'; bounceSubType: string }> = {
  bounce: { bounceType: 'Permanent', bounceSubType: 'General' },
  suppressionlist: { bounceType: 'Permanent', bounceSubType: 'Suppressed' },
  ooto: { bounceType: 'Transient', bounceSubType: 'General' },
};

/** The outcome of a recipient: an ordinary address is delivered, as is a simulator address whose scenario includes a delivery. */
type Outcome = SimulatorScenario | 'ordinary';

const delivered: ReadonlySet<Outcome> = new Set(['ordinary', 'success', 'ooto', 'complaint']);

/** The address inside `Name <address>`, or the text itself. */
function addressOf(mailbox: string): string {
  return (/<([^<>]+)>\s*$/.exec(mailbox)?.[1] ?? mailbox).trim();
}

/** The tags SES puts on every event: the call's EmailTags and SES's own `ses:*` tags. */
function eventTags(mail: SimulatedMail): Record<string, string[]> {
  const tags: Record<string, string[]> = {};
  if (mail.configurationSetName) tags['ses:configuration-set'] = [mail.configurationSetName];
  tags['ses:source-ip'] = ['127.0.0.1'];
  tags['ses:from-domain'] = [addressOf(mail.source).split('@').pop() ?? ''];
  tags['ses:caller-identity'] = ['local'];
  for (const tag of mail.emailTags) tags[tag.Name] = [tag.Value];
  return tags;
}

/** A feedback id in SES's form (message id, a UUID, a counter). */
const feedbackId = () => `${Date.now().toString(16).padStart(16, '0')}-${randomUUID()}-000000`;

/**
 * The SES events for one accepted mail, in the order SES publishes them: the delivery first (one
 * event for every delivered recipient), then bounces, then complaints (a complaint follows its delivery).
 */
export function simulatedEvents(mail: SimulatedMail, origin: SimulatorOrigin): SesEventDetail[] {
  const byOutcome = new Map<Outcome, string[]>();
  for (const recipient of mail.destination) {
    const outcome = simulatorScenarioOf(addressOf(recipient)) ?? 'ordinary';
    byOutcome.set(outcome, [...(byOutcome.get(outcome) ?? []), addressOf(recipient)]);
  }
  const sent = mail.sentAt.getTime();
  // SES reports outcomes after the send: the delivery within a second, feedback after it.
  const at = (offsetMs: number) => new Date(sent + offsetMs).toISOString();
  const sourceAddress = addressOf(mail.source);
  const common: SesEventDetail['mail'] = {
    timestamp: at(0),
    source: mail.source,
    sourceArn: `arn:aws:ses:${origin.region}:${origin.account}:identity/${sourceAddress.split('@').pop() ?? sourceAddress}`,
    sendingAccountId: origin.account,
    messageId: mail.messageId,
    destination: mail.destination,
    headersTruncated: false,
    commonHeaders: { from: [mail.source], to: mail.destination, messageId: mail.messageId, subject: mail.subject },
    tags: eventTags(mail),
  };
  const events: SesEventDetail[] = [];
  const deliveredTo = [...byOutcome].filter(([outcome]) => delivered.has(outcome)).flatMap(([, recipients]) => recipients);
  if (deliveredTo.length > 0) {
    events.push({
      eventType: 'Delivery',
      mail: common,
      delivery: { timestamp: at(500), processingTimeMillis: 500, recipients: deliveredTo, smtpResponse: '250 2.6.0 Message received', reportingMTA: reportingMta },
    });
  }
  for (const scenario of ['bounce', 'suppressionlist', 'ooto'] as const) {
    const recipients = byOutcome.get(scenario);
    if (!recipients) continue;
    events.push({
      eventType: 'Bounce',
      mail: common,
      bounce: {
        ...bounceKind[scenario],
        bouncedRecipients: recipients.map((emailAddress) => ({ emailAddress, ...bounceRecipient[scenario] })),
        timestamp: at(scenario === 'ooto' ? 1_000 : 500),
        feedbackId: feedbackId(),
        reportingMTA: `dsn; ${reportingMta}`,
      },
    });
  }
  const complained = byOutcome.get('complaint');
  if (complained) {
    events.push({
      eventType: 'Complaint',
      mail: common,
      complaint: {
        complainedRecipients: complained.map((emailAddress) => ({ emailAddress })),
        timestamp: at(1_000),
        feedbackId: feedbackId(),
        userAgent: 'Amazon SES Mailbox Simulator',
        complaintFeedbackType: 'abuse',
        complaintSubType: null,
        arrivalDate: at(1_000),
      },
    });
  }
  return events;
}

/** The EventBridge event SES puts on the default bus for one event. */
export function eventBridgeEvent(detail: SesEventDetail, origin: SimulatorOrigin): SesEventBridgeEvent {
  const configurationSet = detail.mail.tags['ses:configuration-set']?.[0];
  return {
    version: '0',
    id: randomUUID(),
    'detail-type': detailTypes[detail.eventType],
    source: 'aws.ses',
    account: origin.account,
    time: new Date().toISOString(),
    region: origin.region,
    resources: configurationSet ? [`arn:aws:ses:${origin.region}:${origin.account}:configuration-set/${configurationSet}`] : [],
    detail,
  };
}
