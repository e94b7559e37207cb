// What each function may do, by name: the single list the stack grants IAM permissions and
// environment variables from. Every function also reads the token-signing key unless it says
// otherwise (list cursors are signed with it, as are the links in mail); a function not listed may do
// nothing else, not even read the table.
import type { QueueName } from '../../shared/queue/queues';
import type { TableIndexName } from '../../shared/table/definition';
import type { EventTarget } from '../../shared/scheduling/scheduled-job';

/** A DynamoDB item action, as IAM names it (a transaction needs the action of each kind of item it holds). */
export type TableAction = 'BatchGetItem' | 'BatchWriteItem' | 'ConditionCheckItem' | 'DeleteItem' | 'GetItem' | 'PutItem' | 'Query' | 'UpdateItem';

export interface FunctionNeeds {
  /** The item actions it performs on the table; never Scan, never table management. */
  table?: readonly TableAction[];
  /** The indexes it queries (granted Query only). */
  indexes?: readonly TableIndexName[];
  /** Sends mail through SES (the sender domain's identity and the configuration set). */
  mail?: boolean;
  /**
   * Sends the accounts' own mail (sends, automation steps, test mails) From their senders' addresses:
   * SendEmail is authorized on the From address's identity, which customers make at run time, so it is
   * granted on every SES identity of this account and region rather than only the sender domain's.
   */
  accountMail?: boolean;
  /**
   * Manages SES sending identities (shared/identities/ses-identities.ts): creates, reads and deletes
   * domain and address identities and sends SES's custom verification mail.
   */
  identities?: boolean;
  /**
   * Counts the region's SES identities against SES's quota of 10,000 (shared/identities/identity-count.ts):
   * ListEmailIdentities, which has no resource-level permissions.
   */
  identityCount?: boolean;
  /**
   * Takes addresses off SES's account-level suppression list (shared/mail/suppression-list.ts), so an
   * address deleted from an account's bounce list is not dropped by SES at its next send.
   */
  suppressionList?: boolean;
  /**
   * The account's SES tenant (shared/tenants/): 'manage' makes tenants, associates the configuration
   * set and identities with them and reads their sending status (a send's dispatch, an automation
   * run); 'read' only reads the status (the stall watchdog, for a send whose mail SES holds); 'send'
   * only sends mail under them (the deliverer and test mails: SendEmail with TenantName is authorized on the tenant).
   */
  tenants?: 'manage' | 'read' | 'send';
  /** Sends system mail (sender confirmations, send summaries) from SYSTEM_FROM_EMAIL. */
  systemMail?: boolean;
  /** Creates and moves one-time schedules in the group (and passes the scheduler role). */
  schedules?: boolean;
  /** Also deletes them: only the code that cancels a job (a send unscheduled or ended by the watchdog). */
  cancelsSchedules?: boolean;
  /**
   * Starts jobs of these targets at once, by invoking the target asynchronously rather than through a
   * schedule (shared/scheduling/start-now.ts: a send made now): `lambda:InvokeFunction` on them alone.
   * Only with `schedules`, whose variables hold the targets' ARNs.
   */
  startsNow?: readonly EventTarget[];
  /** Queues it sends messages to. */
  enqueue?: readonly QueueName[];
  /** False for a function that signs and verifies nothing (no list cursor, no link): it is not given the token-signing key. */
  signingKey?: false;
  /** Seals or opens webhook secrets (shared/webhooks/secret.ts): it is given the webhook secret key. */
  webhookKey?: boolean;
  /**
   * Reads the objects the delivery stream archives SES's delivery events in (shared/object-store/,
   * shared/feedback/delivery-archive.ts): GetObject on the archive bucket's prefix, nothing else of S3.
   */
  sesEventArchive?: boolean;
}

// Checked against the code by test/infra/function-needs.test.ts (the ports its imports reach) and
// test/infra/least-privilege.test.ts (the DynamoDB and SES commands its bundle can send), so a function
// that starts writing, mailing or scheduling fails the tests instead of failing in production, and a
// grant the code no longer uses fails them too.
// An account route reads the caller's credential item (GetItem) before anything else, then counts the
// request on the account's per-second counter (UpdateItem, shared/rate-limits/); a POST that carries
// an Idempotency-Key claims the key (PutItem), keeps its answer (UpdateItem) or frees it after a 500
// (DeleteItem) in the key's own item (shared/http/idempotency.ts). So every family writes a little.
const credentialsAndKeys: readonly TableAction[] = ['GetItem', 'UpdateItem', 'PutItem', 'DeleteItem'];
const read: readonly TableAction[] = [...credentialsAndKeys, 'Query'];
const readWrite: readonly TableAction[] = read;

export const functionNeeds: Readonly<Record<string, FunctionNeeds>> = {
  // HTTP families. A change of contacts or segment membership enrols contacts in automations, which
  // schedules an immediate automation-steps run (shared/automation-runs/enrolment-service.ts).
  // Deleting a type, saving or deleting a segment and setting an automation live start background jobs.
  // A type's contacts leave segments with engagement conditions, whose facts are read in batches.
  'contact-types': { table: [...readWrite, 'BatchGetItem'], schedules: true, enqueue: ['jobs'] },
  // The CSV upload also queues an import job, a bulk upsert a background job (its contacts stored in
  // pieces by BatchWriteItem, its start checking the type: ConditionCheckItem); bulk deletes
  // batch-write, sharded type lists query gsi1.
  contacts: { table: [...readWrite, 'BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem'], indexes: ['gsi1'], schedules: true, enqueue: ['imports', 'jobs'] },
  'custom-fields': { table: readWrite },
  segments: { table: [...readWrite, 'BatchGetItem'], indexes: ['gsi1'], schedules: true, enqueue: ['jobs'] },
  'unsubscribe-groups': { table: [...readWrite, 'BatchGetItem'], indexes: ['gsi1'] },
  'global-unsubscribes': { table: [...readWrite, 'BatchGetItem'], indexes: ['gsi1'] },
  // Lists the bounce and complaint list (by kind: gsi1) and deletes one address from it, deployed
  // also from SES's account-level suppression list.
  suppressions: { table: read, indexes: ['gsi1'], suppressionList: true },
  'notification-recipients': { table: [...readWrite, 'BatchGetItem'] },
  // A save or delete moves the account's webhook count in the same transaction; the secret is sealed
  // with the webhook secret key.
  webhooks: { table: readWrite, webhookKey: true },
  // Read only, but for the request counter and idempotency keys: a job's progress (a bulk upsert's
  // counts and refused contacts are its import's items: GetItem, Query); the design library
  // and reference lists ship in the bundle, so those two read only the caller's credentials.
  jobs: { table: read },
  templates: { table: credentialsAndKeys },
  'reference-data': { table: credentialsAndKeys },
  // A sender saved on (or moved onto) a verified sender domain is verified at once, which releases the
  // single sends waiting for it and books their dispatch, as a confirmation does.
  // Deployed, a new address is registered as an SES email identity (SES mails our custom verification
  // template), details asks SES whether an unverified address is verified now, and the account's last
  // sender of an address deletes its identity. Whether a verified domain of the account covers an
  // address reads the claims of its domain and parent domains, then their records (BatchGetItem).
  senders: { table: [...readWrite, 'BatchGetItem'], mail: true, systemMail: true, schedules: true, identities: true },
  // A save claims the domain and stores its record in one transaction (Put, Put), a delete removes both
  // (Delete, Delete); details stores the status SES reports (UpdateItem). Registers domains with SES.
  // A domain found verified verifies the account's senders on it, which releases the single sends
  // waiting for them and books their dispatch, as a confirmation does (those on its subdomains too:
  // BatchGetItem reads the claims above each address).
  'sender-domains': { table: [...readWrite, 'BatchGetItem'], identities: true, schedules: true },
  // Unauthenticated, reached from links in mail: an unsubscribe or preference change writes the
  // recipient's suppressions in a transaction (put or delete) and moves counters; an open counts once
  // through a marker item; a sender confirmation updates the sender, then releases the single sends
  // that waited for it and books their dispatch jobs. No batch writes. An open, an unsubscribe or a
  // click also queues a delivery for each webhook subscribed to it.
  // Counting an event (an open, a click, an unsubscribe) creates the send's counter shard only while
  // the send's state item exists (ConditionCheckItem), as do the deliverer and SES feedback.
  // A contact's opt-in confirmation reads the segments of its type (gsi1) to enrol it in theirs.
  'public-pages': { table: [...readWrite, 'BatchGetItem', 'ConditionCheckItem'], indexes: ['gsi1'], schedules: true, enqueue: ['webhooks'] },
  // Deleting a mailed send starts the background purge of its link-click items. Resuming a send paused
  // for its reputation queues its parked batches again (removing their items in batches) and books its dispatch.
  'single-sends': { table: [...readWrite, 'BatchGetItem', 'BatchWriteItem'], indexes: ['gsi1'], schedules: true, cancelsSchedules: true, startsNow: ['send-dispatch'], enqueue: ['jobs', 'deliveries'] },
  // automations/stats reads its steps' counters in one batch (BatchGetItem).
  automations: { table: [...readWrite, 'BatchGetItem', 'BatchWriteItem'], indexes: ['gsi1'], schedules: true, enqueue: ['jobs'] },
  // Reads a send or step, its sender and a contact, checks the tester's addresses against the bounce
  // list (BatchGetItem), counts the hour's test mails (UpdateItem) and mails them.
  // Test mails go under the account's SES tenant, from the tenant recorded on the account.
  'test-mails': { table: [...read, 'BatchGetItem'], mail: true, accountMail: true, tenants: 'send' },
  // The fallback (404 or 405 for a path no route claims) is not listed: it touches no item. Nor is
  // api-docs (the OpenAPI document and its viewer, files packaged beside its code).
  // Event functions
  // A send held for its unverified sender is listed for it (PutItem); a listed send released at once
  // (the sender was confirmed meanwhile) leaves the list (DeleteItem).
  // It makes the account's SES tenant when it has none and reads its status before each run (a paused
  // tenant holds the send), associating the send's sender identity with it. Each page's recipients are
  // recorded for a later resend (BatchWriteItem); a resend's page reads its original's ledger, markers
  // and contacts (BatchGetItem). A send that finds its account's suppression state incomplete starts
  // its backfill (a background job, in one transaction with the marker naming it).
  'send-dispatch': { table: ['GetItem', 'Query', 'PutItem', 'UpdateItem', 'DeleteItem', 'BatchGetItem', 'BatchWriteItem'], indexes: ['gsi1'], mail: true, systemMail: true, schedules: true, enqueue: ['deliveries', 'jobs'], tenants: 'manage' },
  // The deliverer re-queues recipients SES throttled on a message's last receive, and the last batch
  // of a send mails its summary to the notification recipients and starts the rebuild of the segments
  // naming the send with `not in single send` (a background job), as the dispatcher does for a send
  // that completes without a delivery left.
  // It sends under the account's tenant, from the tenant recorded on the account (no tenant call).
  'send-deliver': { table: [...readWrite, 'BatchGetItem', 'ConditionCheckItem'], mail: true, accountMail: true, systemMail: true, enqueue: ['deliveries', 'jobs'], tenants: 'send' },
  // Records statistics and suppressions from SES's events; it reads only the account's webhooks
  // (Query, cached a minute) to queue a delivery for each one subscribed to the event. A bounce or
  // complaint reads its send's counters (GetItem) and may pause it, mailing the notification
  // recipients not on the suppression lists (BatchGetItem) as system mail.
  // A person's first click moves the contact in the account's engagement segments (a transaction of
  // its recipient items and a counter) and enrols those that joined (an immediate step run).
  // Deliveries come in objects of the delivery stream's archive; objects a batch has no time left for
  // go back on its own queue as fresh messages.
  'ses-events': {
    table: ['GetItem', 'PutItem', 'UpdateItem', 'DeleteItem', 'Query', 'BatchGetItem', 'ConditionCheckItem'],
    mail: true,
    systemMail: true,
    schedules: true,
    enqueue: ['webhooks', 'jobs', 'ses-events'],
    sesEventArchive: true,
  },
  // Like the dispatcher, it makes and reads the account's SES tenant (a paused one keeps the steps due).
  'automation-steps': { table: [...readWrite, 'BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem'], indexes: ['gsi1'], mail: true, accountMail: true, schedules: true, tenants: 'manage' },
  // Books a stalled send's dispatch job, and cancels the job of a send it ends. A silent send's
  // account tenant is read from SES (GetTenant) and its status recorded: a paused tenant is no stall.
  // Ending a stalled send copies an old send's state into its own item first (PutItem) and sums its
  // counter shards (BatchGetItem).
  // A send it completes starts the rebuild of the segments naming it (engagement-completion.ts), in a
  // transaction beside which the segment writes it can reach build deletes.
  // It also reads the index of accounts owing confirmation mails (gsi1), books their mailer and puts
  // each off while its run goes (UpdateItem). A send it ends, or finds ended or gone, loses its stall
  // watch entry, an item of its own (DeleteItem).
  'send-watchdog': { table: ['GetItem', 'Query', 'UpdateItem', 'PutItem', 'DeleteItem', 'BatchGetItem'], indexes: ['gsi1'], schedules: true, cancelsSchedules: true, signingKey: false, tenants: 'read' },
  // Reads the account's engagement segments (Query), starts the slide's background job (its id from the
  // account's counter: UpdateItem; the job's item: PutItem) and books the next day's run.
  'segment-windows': { table: ['Query', 'UpdateItem', 'PutItem'], schedules: true, enqueue: ['jobs'] },
  // Reads the account's owed confirmation mails (Query), their contacts and types (BatchGetItem) and
  // senders, claims each mail and a place in the hour's budget (UpdateItem), mails it from the type's
  // opt-in sender under the account's tenant, settles it (DeleteItem) and books its next run. Its
  // account's entry on the index of accounts owing mails is read (GetItem), moved or removed.
  'opt-in-mail': { table: ['GetItem', 'Query', 'UpdateItem', 'DeleteItem', 'BatchGetItem'], mail: true, accountMail: true, tenants: 'send', schedules: true },
  // Reads the pending index (gsi1) and refreshes each entry from SES: a domain's status (UpdateItem),
  // a sender verified (UpdateItem) whose waiting single sends are released and booked; a domain found
  // verified reads the claims above its senders' addresses (BatchGetItem). It deletes the address
  // identities left unclicked for a day and counts the region's identities (ListEmailIdentities).
  'identity-refresh': { table: [...readWrite, 'BatchGetItem'], indexes: ['gsi1'], identities: true, identityCount: true, schedules: true },
  // A long import continues in a fresh message of its own queue; imported contacts enrol too.
  'contact-import': { table: [...readWrite, 'BatchGetItem'], indexes: ['gsi1'], schedules: true, enqueue: ['imports'] },
  // A long job continues in a fresh message; a contact-type delete starts segment purges; enrolment
  // schedules an immediate automation-steps run. A bulk upsert writes its contacts as an import does.
  // The suppression state backfill writes each address's state only while its list entry exists
  // (ConditionCheckItem); an automation's enrolment starts it for an account whose state is incomplete.
  'background-jobs': { table: [...readWrite, 'BatchGetItem', 'BatchWriteItem', 'ConditionCheckItem'], indexes: ['gsi1'], schedules: true, enqueue: ['jobs'] },
  // Reads the webhook (its URL and sealed secret) and opens the secret with the webhook secret key. A
  // retry, a probe and a drain page are messages it queues on its own queue; its circuit item moves by
  // UpdateItem; deliveries parked while it is open are put, read (Query) and removed in batches.
  // It connects to hosts tenants choose, so it holds nothing else: not the token-signing key.
  'webhook-deliver': { table: ['GetItem', 'UpdateItem', 'PutItem', 'Query', 'BatchWriteItem'], signingKey: false, webhookKey: true, enqueue: ['webhooks'] },
};

export function needsOf(name: string): FunctionNeeds {
  return functionNeeds[name] ?? {};
}
