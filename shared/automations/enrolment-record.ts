// An automation enrolment as the runner and the API see it, read from its item.
import type { Key } from '../table/keys';
import type { Item } from '../table/records';

/** Why an enrolment ended; `parked` is not an end: its automation was not live when it fell due. */
export type EnrolmentState = 'active' | 'parked' | 'completed' | 'contact-deleted' | 'unsubscribed' | 'left-target';

export interface Enrolment {
  accountId: number;
  automationUtr: string;
  contactId: number;
  email: string;
  /** The id of the last step sent (0 before the first): the next step is the first with a higher id. */
  lastStepId: number;
  /** When the next step falls due. */
  dueAt: Date;
  state: EnrolmentState;
  enrolledAt: string;
  /** The item's key as read: a shard's, or the unsharded partition's for an enrolment stored before. */
  key: Key;
}

export function toEnrolment(item: Item): Enrolment {
  return {
    accountId: Number(item.account_id),
    automationUtr: String(item.automation_utr),
    contactId: Number(item.contact_id),
    email: String(item.email),
    lastStepId: Number(item.last_step_id ?? 0),
    dueAt: new Date(String(item.due_at)),
    state: String(item.state) as EnrolmentState,
    enrolledAt: String(item.enrolled_at),
    key: { pk: String(item.pk), sk: String(item.sk) },
  };
}
