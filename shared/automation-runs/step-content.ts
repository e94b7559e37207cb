// What one automation step mails: its subject, its design and its sender, and the automation's
// unsubscribe group, in the form the shared delivery path takes.
import type { AutomationStep } from '../automations/steps';
import type { Automation } from '../automations/repository';
import { senderPostalAddress } from '../single-sends/sender';
import { getSender } from '../senders/repository';
import { designHtmlOf, type SendContent } from '../delivery/send-content';

/** The automation's unsubscribe group id, when it names one. */
export function automationGroupId(automation: Automation): number | null {
  return /^\d{1,15}$/.test(automation.unsubscribe_group_id) ? Number(automation.unsubscribe_group_id) : null;
}

/** What a step mails, and whether its sender may be mailed from now. */
export interface StepMail {
  content: SendContent;
  /** False while the sender's from address is unverified (never confirmed, or changed since): the step is held. */
  senderVerified: boolean;
}

/** The step's content, with its sender as it is now (steps store the sender id, not a copy). */
export async function stepContent(accountId: number, automation: Automation, step: AutomationStep): Promise<StepMail> {
  const sender = await getSender(accountId, step.sender_id);
  const content: SendContent = {
    subject: step.subject,
    // Steps have no preheader field in the spec.
    preheader: '',
    designHtml: designHtmlOf(step, step.subject),
    fromEmail: sender.from_email,
    replyTo: sender.reply_to_email || null,
    senderName: sender.from_name,
    senderAddress: await senderPostalAddress(sender),
    unsubscribeGroupId: automationGroupId(automation),
  };
  return { content, senderVerified: sender.is_verified === 1 };
}
