// The step runner: drains the due index (every hour bucket and shard from the last one drained up to
// now) and sends each due enrolment's next step through the shared delivery path, then moves the
// enrolment on to its next step or ends it. Safe to run twice at once: the delivery ledger never
// mails a step twice, and every enrolment change is conditional on the version read. A run whose
// time runs out stops at a recipient boundary: what it mailed is moved on and counted, everyone
// else stays due, unclaimed, for the next run. A step whose sender is not verified is never mailed:
// its enrolments stay due until the sender is verified again.
import { automationStatus, exitCriteria, type Automation, type AutomationTarget } from '../automations/repository';
import type { AutomationStepSummary } from '../automations/steps';
import { RunCache } from './run-cache';
import type { ContactRecord } from '../contacts/record';
import { chunked, inParallel } from '../table/concurrency';
import { advanceEnrolment, deleteEnrolments, endEnrolment, keepDue, parkEnrolment, withdrawEnrolment } from '../automations/enrolments';
import type { Enrolment } from '../automations/enrolment-record';
import { dueEnrolmentsPage, dueShardNumbers, lastDrainedHour, markedDueHours, rememberDrainedHour } from '../automations/due-index';
import { describeError, log } from '../log';
import { deliverToRecipients } from '../delivery/deliver';
import { normalized as normalizedAddress } from '../delivery/look-ups';
import type { DeliveryRecipient } from '../delivery/delivery-message';
import { contactFields } from '../contacts/merge-fields';
import type { SendRef } from '../ledger/send-ref';
import { currentTime } from '../time';
import { bucketsToDrain, drainedThrough, dueAfter, legacyDueShards } from '../automations/buckets';
import { currentContacts, stillInTarget } from './members';
import { type StepMail } from './step-content';
import type { AccountTenant } from '../tenancy/tenant-service';
import { contentUnderTenant, tenantPausedReason } from '../send-gates/tenant-gate-service';

export interface RunSummary {
  /** Due enrolments read. */
  due: number;
  /** Step mails handed to SES. */
  sent: number;
  /** Enrolments of contacts pending their double opt-in: not mailed, their enrolment withdrawn until they confirm. */
  skipped: number;
  /** Enrolments moved on to their next step. */
  advanced: number;
  /** Enrolments ended (steps done, contact deleted, unsubscribed, left the target). */
  ended: number;
  /** Enrolments of automations that are not live, taken out of the index until set-live. */
  parked: number;
  /** Enrolments left due for the next run (throttled or failed delivery, or not reached before the run's time ran out). */
  keptDue: number;
  /** Whether every due bucket was drained (false when the run's time ran out or an automation failed). */
  complete: boolean;
}

export interface RunOptions {
  /** Wall-clock time (ms) after which no new work starts. */
  deadline?: number;
  /**
   * Asked before each page, automation, step, delivery batch and recipient: false once no new work
   * may start (a Lambda's remaining time is down to its reserve). Work under way finishes: a mail
   * handed to SES is waited for, then its enrolment is moved on and the mail counted.
   */
  keepGoing?: () => boolean;
}

/** One run's shared state. */
interface Run {
  cache: RunCache;
  summary: RunSummary;
  /** Whether new work may start; once false, false for the rest of the run. */
  keepGoing: () => boolean;
}

/** Enrolments read per page of one bucket shard. */
const pageSize = 1000;
/** Recipients per delivery call; a few calls run at once, each with the pipeline's own concurrency. */
const deliveryBatch = 100;
const parallelDeliveries = 4;
const writeConcurrency = 16;
/** Bucket partitions (hour x shard) read at once. */
const parallelPartitions = 16;
const legacyDueShardNumbers = Array.from({ length: legacyDueShards }, (_, shard) => shard);

function emptySummary(): RunSummary {
  return { due: 0, sent: 0, skipped: 0, advanced: 0, ended: 0, parked: 0, keptDue: 0, complete: true };
}

function targetOf(automation: Automation): AutomationTarget | undefined {
  return automation.automation_for_table && automation.automation_for !== null ? { table: automation.automation_for_table, id: automation.automation_for } : undefined;
}

type Counter = 'advanced' | 'ended' | 'parked' | 'keptDue' | 'skipped';

/**
 * Apply one enrolment change to many enrolments and count those that took effect into `summary`
 * (added once at the end: parallel batches share the summary, and `x += await` would lose counts).
 */
async function changeAll(enrolments: readonly Enrolment[], change: (enrolment: Enrolment) => Promise<boolean>, summary: RunSummary, counter: Counter): Promise<void> {
  let changed = 0;
  await inParallel(enrolments, writeConcurrency, async (enrolment) => {
    if (await change(enrolment)) changed++;
  });
  summary[counter] += changed;
}

/**
 * Send one step to the enrolments due for it, then advance, end or keep each: delivery batch by
 * batch, each batch's enrolments written and its mails counted as soon as it ends, so a run that
 * stops loses nothing it did. A batch not started before the run's time ran out is left as it is.
 */
async function runStep(run: Run, automation: Automation, steps: AutomationStepSummary[], step: AutomationStepSummary, enrolments: Enrolment[], tenant?: AccountTenant): Promise<void> {
  const { cache, summary } = run;
  const accountId = automation.user_id;
  const contacts = await currentContacts(accountId, enrolments.map((enrolment) => enrolment.contactId));
  const gone = enrolments.filter((enrolment) => !contacts.has(enrolment.contactId));
  let present = enrolments.filter((enrolment) => contacts.has(enrolment.contactId));
  await changeAll(gone, (enrolment) => endEnrolment(enrolment, 'contact-deleted'), summary, 'ended');

  const target = targetOf(automation);
  if (automation.exit_criteria === exitCriteria.whenLeavingTarget && target) {
    const inTarget = await stillInTarget(accountId, target, present.map((enrolment) => contacts.get(enrolment.contactId) as ContactRecord));
    const left = present.filter((enrolment) => !inTarget.has(enrolment.contactId));
    present = present.filter((enrolment) => inTarget.has(enrolment.contactId));
    await changeAll(left, (enrolment) => endEnrolment(enrolment, 'left-target'), summary, 'ended');
  }

  // Pending its double opt-in (enrolled through a segment it matched meanwhile): never mailed; the
  // enrolment is withdrawn, and its confirmation enrols the contact afresh (audience/opt-in-confirm.ts).
  const pending = present.filter((enrolment) => contacts.get(enrolment.contactId)?.subscription_status === 'pending');
  if (pending.length > 0) {
    present = present.filter((enrolment) => !pending.includes(enrolment));
    await changeAll(pending, withdrawEnrolment, summary, 'skipped');
  }

  // Unsubscribed (globally or from the automation's group): the deliverer finds them in its look-up
  // right before each mail (one read of each address's suppression state, not two) and the enrolment ends there.
  const byState = await cache.suppressionState(accountId);

  let mail: StepMail;
  try {
    mail = await cache.content(accountId, automation, step);
  } catch (error) {
    // E.g. the step's sender was deleted: nothing can be sent; the enrolments wait for a fix.
    log.error('automation step could not be prepared', { accountId, automationUtr: automation.utr, stepUtr: step.utr, ...describeError(error) });
    await changeAll(present, keepDue, summary, 'keptDue');
    return;
  }
  if (!mail.senderVerified) {
    // Never mailed from an unverified address: the step is held, its enrolments stay due (nothing
    // skipped, nothing counted) and go out once the sender is verified again.
    log.warn('automation step held: its sender is not verified', { accountId, automationUtr: automation.utr, stepUtr: step.utr, senderId: step.sender_id });
    await changeAll(present, keepDue, summary, 'keptDue');
    return;
  }
  const content = await contentUnderTenant(accountId, tenant, mail.content);
  const ref: SendRef = { kind: 'automation-step', accountId, automationUtr: automation.utr, stepUtr: step.utr };
  const after = steps.find((candidate) => candidate.id > step.id);
  // Paused while its step is mailed (for its reputation by ses-events, or by its owner): the mailing
  // stops within about a second; what it did not reach stays due, and the next run parks it.
  const watch = cache.pauseWatch(accountId, automation.utr);
  const goOn = () => run.keepGoing() && !watch.paused();
  await inParallel(chunked(present, deliveryBatch), parallelDeliveries, async (batch) => {
    if (!goOn()) {
      summary.keptDue += batch.length;
      return;
    }
    const recipients: DeliveryRecipient[] = await Promise.all(
      batch.map(async (enrolment) => {
        const contact = contacts.get(enrolment.contactId) as ContactRecord;
        return { email: contact.email, contactId: contact.id, fields: contactFields(contact, await cache.countryName(contact.country)) };
      }),
    );
    // Stopped mid-batch (time up, or paused), the deliverer hands back everyone it did not mail, unclaimed, in `deferred`.
    const outcome = await deliverToRecipients(ref, content, recipients, { keepGoing: goOn, ...(byState ? { suppressionState: true } : {}) });
    summary.sent += outcome.sent;
    const retry = new Set([...outcome.failed, ...outcome.deferred].map((recipient) => recipient.contactId));
    const kept = (enrolment: Enrolment) => retry.has(enrolment.contactId);
    // By address: an address two enrolments share is mailed (or skipped) once, and both end if it unsubscribed.
    const unsubscribedAddresses = new Set(outcome.unsubscribed.map((recipient) => normalizedAddress(recipient.email)));
    const unsubscribed = (enrolment: Enrolment) => !kept(enrolment) && unsubscribedAddresses.has(normalizedAddress((contacts.get(enrolment.contactId) as ContactRecord).email));
    const done = batch.filter((enrolment) => !kept(enrolment) && !unsubscribed(enrolment));
    await changeAll(batch.filter(kept), keepDue, summary, 'keptDue');
    await changeAll(batch.filter(unsubscribed), (enrolment) => endEnrolment(enrolment, 'unsubscribed'), summary, 'ended');
    // The next step waits from the moment this one went out, so a late step never bunches up the next.
    if (after) await changeAll(done, (enrolment) => advanceEnrolment(enrolment, step.id, dueAfter(currentTime(), after)), summary, 'advanced');
    else await changeAll(done, (enrolment) => endEnrolment(enrolment, 'completed', step.id), summary, 'ended');
  }).finally(watch.stop);
}

/** Handle the due enrolments of one automation. */
async function runAutomation(run: Run, accountId: number, automationUtr: string, enrolments: Enrolment[]): Promise<void> {
  const { cache, summary } = run;
  const automation = await cache.automation(accountId, automationUtr);
  if (!automation) {
    // Deleted while these were due (its delete removes them too): nothing to send, nothing to keep.
    await deleteEnrolments(accountId, automationUtr);
    return;
  }
  if (automation.status !== automationStatus.live) {
    await changeAll(enrolments, parkEnrolment, summary, 'parked');
    return;
  }
  const steps = await cache.stepsOf(accountId, automationUtr);
  const byStep = new Map<number, Enrolment[]>();
  const finished: Enrolment[] = [];
  for (const enrolment of enrolments) {
    const next = steps.find((step) => step.id > enrolment.lastStepId);
    if (!next) finished.push(enrolment);
    else byStep.set(next.id, [...(byStep.get(next.id) ?? []), enrolment]);
  }
  await changeAll(finished, (enrolment) => endEnrolment(enrolment, 'completed'), summary, 'ended');
  // The account's SES tenant, made when missing and read from SES once per run: while it is paused,
  // every due enrolment stays due (its place kept) and goes once SES enables the tenant again.
  const tenant = byStep.size > 0 ? await cache.tenant(accountId) : undefined;
  if (tenant?.status === 'paused') {
    log.warn('automation steps held: the account\'s SES tenant is paused', { accountId, automationUtr, reason: tenantPausedReason, tenant: tenant.name });
    await changeAll([...byStep.values()].flat(), keepDue, summary, 'keptDue');
    return;
  }
  for (const [stepId, due] of byStep) {
    if (!run.keepGoing()) {
      summary.keptDue += due.length;
      continue;
    }
    await runStep(run, automation, steps, steps.find((step) => step.id === stepId) as AutomationStepSummary, due, tenant);
  }
}

/** Handle one page of due enrolments, automation by automation. */
async function runPage(run: Run, enrolments: Enrolment[]): Promise<void> {
  const { summary } = run;
  const byAutomation = new Map<string, Enrolment[]>();
  for (const enrolment of enrolments) {
    const key = `${enrolment.accountId}#${enrolment.automationUtr}`;
    byAutomation.set(key, [...(byAutomation.get(key) ?? []), enrolment]);
  }
  for (const group of byAutomation.values()) {
    const first = group[0] as Enrolment;
    if (!run.keepGoing()) {
      // Out of time: left in the due index as they are.
      summary.keptDue += group.length;
      continue;
    }
    try {
      await runAutomation(run, first.accountId, first.automationUtr, group);
    } catch (error) {
      // One automation's failure leaves its enrolments due; the others still run.
      log.error('automation steps failed; their enrolments stay due', { accountId: first.accountId, automationUtr: first.automationUtr, ...describeError(error) });
      summary.complete = false;
    }
  }
}

/**
 * Send every step due by now, or as much as fits before the run's time runs out. Each enrolment
 * version is handled once per run (one left due is not retried in the same run); the drained hours
 * are remembered only when the run finished them all.
 */
export async function runDueSteps(options: RunOptions = {}): Promise<RunSummary> {
  const now = currentTime();
  const summary = emptySummary();
  const seen = new Set<string>();
  let outOfTime = false;
  const keepGoing = () => {
    if (!outOfTime && ((options.deadline !== undefined && Date.now() > options.deadline) || options.keepGoing?.() === false)) outOfTime = true;
    return !outOfTime;
  };
  const run: Run = { cache: new RunCache(), summary, keepGoing };
  const hours = bucketsToDrain(now, await lastDrainedHour());
  const marked = await markedDueHours(hours[0] as string, hours.at(-1) as string);
  // An hour nothing was indexed in since hours were marked can only hold enrolments of before, in its first shards.
  const partitions = hours.flatMap((hour) => (marked.has(hour) ? dueShardNumbers : legacyDueShardNumbers).map((shard) => ({ hour, shard })));
  // Oldest hours first; a few partitions at once, so catching up on many empty hours stays quick.
  await inParallel(partitions, parallelPartitions, async ({ hour, shard }) => {
    let cursor: Record<string, unknown> | undefined;
    do {
      if (!keepGoing()) return;
      const page = await dueEnrolmentsPage(hour, shard, now, cursor, pageSize);
      cursor = page.next;
      const fresh = page.enrolments.filter((enrolment) => {
        const version = `${enrolment.accountId}#${enrolment.automationUtr}#${enrolment.contactId}#${enrolment.lastStepId}`;
        if (seen.has(version)) return false;
        seen.add(version);
        return true;
      });
      summary.due += fresh.length;
      if (fresh.length > 0) await runPage(run, fresh);
    } while (cursor);
  });
  if (outOfTime) summary.complete = false;
  if (summary.complete) await rememberDrainedHour(drainedThrough(now));
  return summary;
}
