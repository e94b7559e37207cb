// What each function may do beyond the table and the token-signing key, by name: the single list the
// stack grants IAM permissions and environment variables from. A function not listed uses only those
// two (every function reads the key: list cursors are signed with it, as are the links in mail).
import type { QueueName } from '../../shared/queue/queues';

export interface FunctionNeeds {
  /** Sends mail through SES (the sender domain's identity and the configuration set). */
  mail?: boolean;
  /** Sends system mail (sender confirmations, send summaries) from SYSTEM_FROM_EMAIL. */
  systemMail?: boolean;
  /** Creates, moves and deletes one-time schedules in the group (and passes the scheduler role). */
  schedules?: boolean;
  /** Queues it sends messages to. */
  enqueue?: readonly QueueName[];
}

// Checked against the code's imports by test/infra/function-needs.test.ts, so a function that starts
// sending mail or scheduling fails the tests instead of failing in production.
export const functionNeeds: Readonly<Record<string, FunctionNeeds>> = {
  // HTTP families. A change of contacts or segment membership enrols contacts in automations, which
  // schedules an immediate automation-steps run (shared/automations/enrolment-service.ts).
  senders: { mail: true, systemMail: true },
  'single-sends': { schedules: true },
  'contact-types': { schedules: true },
  // The CSV upload also queues an import job.
  contacts: { schedules: true, enqueue: ['imports'] },
  segments: { schedules: true },
  automations: { schedules: true },
  // Event functions
  'send-dispatch': { mail: true, systemMail: true, schedules: true, enqueue: ['deliveries'] },
  // The deliverer re-queues recipients SES throttled on a message's last receive, and the last batch
  // of a send mails its summary to the notification recipients.
  'send-deliver': { mail: true, systemMail: true, enqueue: ['deliveries'] },
  'automation-steps': { mail: true, schedules: true },
  // A long import continues in a fresh message of its own queue; imported contacts enrol too.
  'contact-import': { schedules: true, enqueue: ['imports'] },
};

export function needsOf(name: string): FunctionNeeds {
  return functionNeeds[name] ?? {};
}
