// What setting an automation live starts, as a background job: enrolments parked while it was paused
// or a draft are put back in the due index, and a custom automation enrols its target's current
// members, page by page from a cursor. Enrolment is a conditional write per contact, so a page run
// twice (a redelivered message) enrols nobody twice.
import { automationStatus, automationTypes, getAutomation, type Automation } from '../automations/repository';
import { contactsOfTypePage } from '../contacts/repository';
import { resumeParkedEnrolmentsPage } from '../automations/enrolments';
import { startJob, type JobCursor, type JobOutcome, type JobRun } from '../background-jobs/job-queue';
import { segmentRecipientsAfter } from '../segments/recipients';
import { RecordNotFound } from '../table/errors';
import { enrolInAutomation, runStepsSoon } from './enrolment-service';
import { suppressionStateReady } from '../background-jobs/suppression-state-backfill';

/** Members read (and enrolled) per page. */
const pageSize = 500;

/** Call after the automation's status became live: starts the job that resumes and enrols. */
export function automationWentLive(accountId: number, automation: Automation): Promise<number> {
  return startJob(accountId, { kind: 'automation-enrol', target: automation.utr, message: 'Waiting to enrol the automation\u2019s audience.' });
}

/** One page of the target's members after `after`: how many were read, how many newly enrolled, and where the next page starts. */
async function enrolMembersPage(accountId: number, automation: Automation, after: JobCursor['after']): Promise<{ read: number; enrolled: number; next: JobCursor }> {
  const id = automation.automation_for;
  const done: JobCursor = { phase: 'done', after: null };
  if (id === null) return { read: 0, enrolled: 0, next: done };
  if (automation.automation_for_table === 'contacts_') {
    const contacts = await contactsOfTypePage(accountId, id, after === null ? null : Number(after), pageSize);
    // A contact pending its double opt-in is enrolled when it confirms.
    const confirmed = contacts.filter((contact) => contact.subscription_status === 'confirmed');
    const enrolled = await enrolInAutomation(accountId, automation, confirmed.map((contact) => ({ contactId: contact.id, email: contact.email })));
    const last = contacts.at(-1);
    return { read: contacts.length, enrolled, next: contacts.length < pageSize || !last ? done : { phase: 'members', after: last.id } };
  }
  const page = await segmentRecipientsAfter(accountId, id, after === null ? null : String(after), pageSize);
  const joiners = page.recipients.flatMap((recipient) => (recipient.contact_id === null ? [] : [{ contactId: recipient.contact_id, email: recipient.email }]));
  const enrolled = await enrolInAutomation(accountId, automation, joiners);
  return { read: page.recipients.length, enrolled, next: page.recipients.length < pageSize || page.last === undefined ? done : { phase: 'members', after: page.last } };
}

/** The `automation-enrol` job. It ends superseded when the automation is paused or deleted meanwhile. */
export async function runAutomationEnrolJob(run: JobRun): Promise<JobOutcome> {
  const { accountId } = run;
  const superseded: JobOutcome = { status: 'superseded', message: 'The automation was paused or deleted before its audience was enrolled.' };
  // The step runner (whose function queues nothing) reads the account's suppression state only once
  // it is complete: an automation going live on an account stored before it starts its backfill.
  if (run.job.cursor === null) await suppressionStateReady(accountId);
  let cursor: JobCursor = run.job.cursor ?? { phase: 'parked', after: null };
  while (cursor.phase !== 'done') {
    if (!run.keepGoing()) return { status: 'paused' };
    let automation: Automation;
    try {
      automation = await getAutomation(accountId, run.job.target);
    } catch (error) {
      if (error instanceof RecordNotFound) return superseded;
      throw error;
    }
    if (automation.status !== automationStatus.live) return superseded;
    let more: number;
    let next: JobCursor;
    if (cursor.phase === 'parked') {
      const page = await resumeParkedEnrolmentsPage(accountId, automation.utr, cursor.after === null ? null : String(cursor.after), pageSize);
      more = page.resumed;
      const members = automation.automation_type === automationTypes.custom ? 'members' : 'done';
      next = page.last === null ? { phase: members, after: null } : { phase: 'parked', after: page.last };
    } else {
      const page = await enrolMembersPage(accountId, automation, cursor.after);
      more = page.enrolled;
      next = page.next;
    }
    if (!(await run.checkpoint(more, next, next.phase === 'parked' ? 'Resuming paused enrolments.' : 'Enrolling the automation\u2019s audience.'))) return superseded;
    if (more > 0) await runStepsSoon();
    cursor = next;
  }
  return { status: 'completed', message: 'The automation\u2019s audience is enrolled.' };
}
