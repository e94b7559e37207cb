// What setting an automation live starts: a custom automation enrols its target's current members,
// and enrolments parked while it was paused or a draft are put back in the due index.
import { automationTypes, type Automation } from './repository';
import { forEachContactOfType } from '../contacts/repository';
import { resumeParkedEnrolments } from './enrolments';
import { forEachSegmentRecipient } from '../segments/membership';
import { enrolInAutomation, runStepsSoon } from './enrolment-service';

/** Members read (and enrolled) per page. */
const pageSize = 500;

/** Enrol every current member of the automation's target; answers how many were new. */
async function enrolTargetMembers(accountId: number, automation: Automation): Promise<number> {
  const id = automation.automation_for;
  if (id === null) return 0;
  let enrolled = 0;
  if (automation.automation_for_table === 'contacts_') {
    await forEachContactOfType(
      accountId,
      id,
      async (contacts) => {
        enrolled += await enrolInAutomation(accountId, automation, contacts.map((contact) => ({ contactId: contact.id, email: contact.email })));
      },
      pageSize,
    );
  } else if (automation.automation_for_table === 'segments_') {
    await forEachSegmentRecipient(
      accountId,
      id,
      async (recipients) => {
        const joiners = recipients.flatMap((recipient) => (recipient.contact_id === null ? [] : [{ contactId: recipient.contact_id, email: recipient.email }]));
        enrolled += await enrolInAutomation(accountId, automation, joiners);
      },
      pageSize,
    );
  }
  return enrolled;
}

/**
 * Call after the automation's status became live. Parked enrolments resume where they stood (a step
 * that fell due while paused is sent now); a custom automation then enrols members not enrolled yet.
 */
export async function automationWentLive(accountId: number, automation: Automation): Promise<{ resumed: number; enrolled: number }> {
  const resumed = await resumeParkedEnrolments(accountId, automation.utr);
  const enrolled = automation.automation_type === automationTypes.custom ? await enrolTargetMembers(accountId, automation) : 0;
  await runStepsSoon();
  return { resumed, enrolled };
}
