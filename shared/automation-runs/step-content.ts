// What one automation step mails: its subject, its design and its sender, and the automation's
// unsubscribe group, in the form the shared delivery path takes.
import { readStepDesign, type AutomationStepSummary, type StepDesign } from '../automations/steps';
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

/**
 * Designs kept by this container, by account, step utr and `updated_at`: a step never changes under
 * the same version, so a design is read from the table once per container, not once per run or
 * per mail. Bounded in bytes (designs reach 350 KB); the oldest read goes first.
 */
const designCache = new Map<string, { design: StepDesign; bytes: number }>();
const designCacheBytes = 32 * 1024 * 1024;
let cachedBytes = 0;

function sizeOf(design: StepDesign): number {
  return Buffer.byteLength(design.template_json ?? '', 'utf8') + Buffer.byteLength(design.template_html ?? '', 'utf8');
}

/** The step's design, read once per container per step version. */
export async function stepDesign(accountId: number, automationUtr: string, step: AutomationStepSummary): Promise<StepDesign> {
  const key = `${accountId}#${step.utr}#${step.updated_at}`;
  const cached = designCache.get(key);
  if (cached) return cached.design;
  const design = await readStepDesign(accountId, automationUtr, step.id);
  const bytes = sizeOf(design);
  designCache.set(key, { design, bytes });
  cachedBytes += bytes;
  for (const [oldest, entry] of designCache) {
    if (cachedBytes <= designCacheBytes || oldest === key) break;
    designCache.delete(oldest);
    cachedBytes -= entry.bytes;
  }
  return design;
}

/** The step's content, with its sender as it is now (steps store the sender id, not a copy). */
export async function stepContent(accountId: number, automation: Automation, step: AutomationStepSummary): Promise<StepMail> {
  const sender = await getSender(accountId, step.sender_id);
  const design = await stepDesign(accountId, automation.utr, step);
  const content: SendContent = {
    subject: step.subject,
    // Steps have no preheader field in the spec.
    preheader: '',
    designHtml: designHtmlOf({ ...design, template_id: step.template_id }, step.subject),
    fromEmail: sender.from_email,
    replyTo: sender.reply_to_email || null,
    senderName: sender.from_name,
    senderAddress: await senderPostalAddress(sender),
    unsubscribeGroupId: automationGroupId(automation),
  };
  return { content, senderVerified: sender.is_verified === 1 };
}
