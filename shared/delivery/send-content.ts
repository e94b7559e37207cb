// What every recipient of one send or automation step shares: subject, preheader, the design as
// HTML, and the sender. Single sends build it from their record; the automation engine from its step.
import { renderDesignHtml, type Design } from '../templates/design';
import { findDesignTemplate } from '../templates/repository';
import type { SingleSend } from '../single-sends/record';
import type { AbSettings } from '../single-sends/ab-test';

export interface SendContent {
  subject: string;
  preheader: string;
  /** The design with its placeholders still in it. */
  designHtml: string;
  fromEmail: string;
  replyTo: string | null;
  senderName: string;
  /** The sender's postal address as one line (footer and `((sender_address))`). */
  senderAddress: string;
  /** The group the recipient's unsubscribe link and the send-time suppression check use. */
  unsubscribeGroupId: number | null;
  /** The account's SES tenant the mails go under (shared/tenants/sending-tenant.ts); absent: none. */
  tenantName?: string;
  /** A single send's A/B test subjects, by index; absent when it tests none. */
  abSubjects?: readonly string[];
  /** Set on the content of one subject's part of the test share: its mails carry their subject's index. */
  testVariant?: number;
}

/**
 * The content a batch of an A/B test's share is mailed with: its subject's, its mails marked with
 * the subject's index so their opens and clicks count toward it. (A send's subjects cannot change
 * once it runs; an index it does not have keeps the send's subject.)
 */
export function testVariantContent(content: SendContent, variant: number): SendContent {
  return { ...content, subject: content.abSubjects?.[variant] ?? content.subject, testVariant: variant };
}

/** The design choice a send or step stores (the spec's fields). */
export interface DesignChoice {
  template_id: number;
  template_json: string | null;
  template_html: string | null;
}

function asDesign(json: string): Design | undefined {
  try {
    const parsed = JSON.parse(json) as Partial<Design>;
    return parsed?.version === 1 && Array.isArray(parsed.blocks) && typeof parsed.theme === 'object' ? (parsed as Design) : undefined;
  } catch {
    return undefined;
  }
}

/**
 * The design as HTML: the custom HTML when given, else the custom JSON design rendered, else the
 * library template. JSON that is not our design format falls back to the library template it names.
 */
export function designHtmlOf(choice: DesignChoice, title: string): string {
  if (choice.template_html && choice.template_html.trim() !== '') return choice.template_html;
  const design = choice.template_json ? asDesign(choice.template_json) : undefined;
  if (design) return renderDesignHtml(design, title);
  const template = findDesignTemplate(choice.template_id);
  if (!template) throw new Error(`Template ${choice.template_id} does not exist and no custom design was given`);
  return template.html_code;
}

export function singleSendContent(singleSend: SingleSend, abTest?: AbSettings): SendContent {
  return {
    ...(abTest ? { abSubjects: abTest.subjects } : {}),
    subject: singleSend.subject,
    preheader: singleSend.preheader,
    designHtml: designHtmlOf(singleSend, singleSend.subject),
    fromEmail: singleSend.from_sender,
    replyTo: singleSend.reply_to || null,
    senderName: singleSend.sender_name ?? '',
    senderAddress: singleSend.sender_address ?? '',
    unsubscribeGroupId: singleSend.unsubscribe_group_id > 0 ? singleSend.unsubscribe_group_id : null,
  };
}
