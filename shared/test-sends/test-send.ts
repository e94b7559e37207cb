// Test sends and previews of a single send or an automation step: the mail one person would get,
// composed by the delivery path (see test-mail.ts), personalised with a contact's values or samples.
// A test mail is sent straight through the mail port: no ledger entry, no statistics, no SES tag that
// names the send; only a verified sender may send it, and each account has an hourly budget of them.
import { getAutomation } from '../automations/repository';
import { stepContent } from '../automation-runs/step-content';
import { getAutomationStep } from '../automations/steps';
import { getContact } from '../contacts/repository';
import { describeError, log } from '../log';
import { sendMail } from '../mail/mailer';
import { findCountry } from '../reference-data/repository';
import { getSender } from '../senders/repository';
import { getSingleSend } from '../single-sends/repository';
import { RecordNotFound } from '../table/errors';
import { contactFields } from '../contacts/merge-fields';
import { singleSendContent, type SendContent } from '../delivery/send-content';
import { withAccountTenant } from '../tenants/sending-tenant';
import { encodeSendRef, type SendRef } from '../ledger/send-ref';
import { harmlessRecipientMail, samplePersona, testRecipient, testSubjectPrefix, type TestPersona } from './test-mail';
import { claimTestMails, releaseTestMails } from './test-send-budget';

/** What a test or preview renders: the send or step, its shared content, and whether its sender may mail now. */
export interface TestSubject {
  ref: SendRef;
  content: SendContent;
  senderVerified: boolean;
}

/** The mail's sender is not verified (never confirmed, changed since, or deleted): nothing may be mailed from it. */
export class SenderNotVerified extends Error {
  constructor(readonly ref: SendRef) {
    super(`The sender of ${encodeSendRef(ref)} is not verified`);
    this.name = 'SenderNotVerified';
  }
}

/** The account's test mails of this hour are spent. */
export class TestMailBudgetSpent extends Error {
  constructor(readonly retryAfterSeconds: number) {
    super('The test mail budget of this hour is spent');
    this.name = 'TestMailBudgetSpent';
  }
}

/** A single send of the account, as a test or preview renders it; RecordNotFound when there is none. */
export async function singleSendSubject(accountId: number, utr: string): Promise<TestSubject> {
  const singleSend = await getSingleSend(accountId, utr);
  // The send holds a copy of its sender's address: it may be mailed from only while that sender is
  // verified at that same address (an address changed since is unverified until confirmed again).
  const sender = await getSender(accountId, singleSend.sender_id).catch((error: unknown) => {
    if (error instanceof RecordNotFound) return undefined;
    throw error;
  });
  const senderVerified = sender?.is_verified === 1 && sender.from_email.toLowerCase() === singleSend.from_sender.toLowerCase();
  // A test mail is the account's mail: it goes under the account's SES tenant, as its sends do.
  return { ref: { kind: 'single-send', accountId, utr: singleSend.utr }, content: await withAccountTenant(accountId, singleSendContent(singleSend)), senderVerified };
}

/** An automation step (by its utr) of the account; RecordNotFound when there is none. */
export async function automationStepSubject(accountId: number, stepUtr: string): Promise<TestSubject> {
  const { step, automationUtr } = await getAutomationStep(accountId, stepUtr);
  const automation = await getAutomation(accountId, automationUtr);
  const ref: SendRef = { kind: 'automation-step', accountId, automationUtr, stepUtr: step.utr };
  try {
    const { content, senderVerified } = await stepContent(accountId, automation, step);
    return { ref, content: await withAccountTenant(accountId, content), senderVerified };
  } catch (error) {
    // The step's sender was deleted: the step cannot be mailed, and neither can its test.
    if (error instanceof RecordNotFound) throw new SenderNotVerified(ref);
    throw error;
  }
}

/** A contact's placeholder values (the country by name, as mailed); RecordNotFound when the account has no such contact. */
export async function contactPersona(accountId: number, contactId: number): Promise<TestPersona & { email: string }> {
  const contact = await getContact(accountId, contactId);
  const country = /^\d+$/.test(contact.country) ? await findCountry(Number(contact.country)).catch(() => undefined) : undefined;
  return { contactId: contact.id, email: contact.email, fields: contactFields(contact, country?.name) };
}

/** The persona of a test or preview: the contact's when one is named, else the samples. */
export async function personaOf(accountId: number, contactId: number | undefined): Promise<TestPersona & { email: string }> {
  if (contactId === undefined) return { ...samplePersona, email: samplePersona.fields.email as string };
  return contactPersona(accountId, contactId);
}

export interface MailPreview {
  subject: string;
  html: string;
  text: string;
}

/** What the persona's address would receive: subject, HTML and text, personalised, footer, pixel and links included. */
export function previewMail(subject: TestSubject, persona: TestPersona & { email: string }): MailPreview {
  const mail = harmlessRecipientMail(subject.ref, subject.content, testRecipient(persona.email, persona));
  return { subject: mail.subject, html: mail.html, text: mail.text ?? '' };
}

/**
 * Mail the test to each address, `[Test] ` before the subject, from a verified sender and within the
 * account's hourly budget (all addresses or none). Places of mails not sent are given back.
 */
export async function sendTestMails(subject: TestSubject, persona: TestPersona, addresses: readonly string[]): Promise<void> {
  if (!subject.senderVerified) throw new SenderNotVerified(subject.ref);
  const check = await claimTestMails(subject.ref.accountId, addresses.length);
  if (!check.allowed) throw new TestMailBudgetSpent(check.retryAfterSeconds);
  let sent = 0;
  try {
    for (const address of addresses) {
      const mail = harmlessRecipientMail(subject.ref, subject.content, testRecipient(address, persona));
      await sendMail({ ...mail, subject: `${testSubjectPrefix}${mail.subject}` });
      sent++;
    }
  } catch (error) {
    await releaseTestMails(check.claim, addresses.length - sent).catch((releaseError: unknown) =>
      log.error('test mail places could not be given back', { ref: encodeSendRef(subject.ref), ...describeError(releaseError) }),
    );
    throw error;
  } finally {
    log.info('test mails sent', { ref: encodeSendRef(subject.ref), sent, asked: addresses.length });
  }
}
