// Automation test fixtures: an account with what an automation refers to (a contact type, a segment,
// an unsubscribe group, a verified sender), and calls to the automations family's handler.
import { handler } from '../../functions/automations/handler';
import { addContactType } from '../../shared/contact-types/repository';
import { addSegment } from '../../shared/segments/repository';
import { addSender, confirmSenderAddress } from '../../shared/senders/repository';
import { addUnsubscribeGroup } from '../../shared/suppressions/unsubscribe-groups';
import { newAccount } from './accounts';
import { apiEvent, authHeaders, multipart, parsed, type Keys } from './events';
import { accountIdOf, jobsSettled } from './jobs';
import { place } from './senders';

export const isoPattern = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;
export const uuidPattern = /^[0-9a-f]{8}-[0-9a-f]{4}-4[0-9a-f]{3}-[89ab][0-9a-f]{3}-[0-9a-f]{12}$/;

export interface AutomationWorld {
  keys: Keys & { account_id: number };
  accountId: number;
  contactTypeId: number;
  segmentId: number;
  groupId: number;
  senderId: number;
}

export async function automationWorld(): Promise<AutomationWorld> {
  const keys = await newAccount('Automations');
  const accountId = keys.account_id;
  const contactType = await addContactType(accountId, 'Newsletter');
  const segment = await addSegment(accountId, { contact_type_id: contactType.id, segment_name: 'Everyone', conditions: [] });
  const group = await addUnsubscribeGroup(accountId, { group_name: 'News', description: 'Monthly news', is_display: 1 });
  const sender = await addSender(accountId, {
    from_name: 'Acme News',
    from_email: 'news@acme.example',
    reply_to_email: 'support@acme.example',
    country_id: place.usa,
    state_id: place.california,
    city_id: place.losAngeles,
    zip_code: '90001',
    company_address: '1 Main Street',
    company_address2: null,
    nickname: 'News',
  });
  // Steps are only mailed from a verified sender.
  await confirmSenderAddress(accountId, sender.id, sender.from_email);
  return { keys, accountId, contactTypeId: contactType.id, segmentId: segment.id, groupId: group.id, senderId: sender.id };
}

type CallOptions = Omit<Parameters<typeof apiEvent>[0], 'method' | 'path'>;

/** Call the automations handler; `keys` undefined sends no credentials. Returns once the background jobs a call started (set-live enrolment, a GET) have finished. */
export async function call(keys: Keys | undefined, method: string, path: string, options: CallOptions = {}) {
  const result = parsed(await handler(apiEvent({ method, path, ...options, headers: { ...(keys ? authHeaders(keys) : {}), ...options.headers } })));
  const accountId = accountIdOf(keys);
  if (accountId !== undefined) await jobsSettled(accountId);
  return result;
}

/** Create an automation through the API and answer its utr. */
export async function createAutomation(world: AutomationWorld, fields: Record<string, string | number> = {}): Promise<string> {
  const result = await call(world.keys, 'POST', 'automations/create', {
    body: multipart({
      type: 'welcome',
      automation_for: `contacts_${world.contactTypeId}`,
      automation_name: 'Welcome series',
      unsubscribe_group_id: world.groupId,
      ...fields,
    }),
  });
  if (result.status !== 200) throw new Error(`create failed: ${JSON.stringify(result.body)}`);
  return (result.body.message as { utr: string }).utr;
}

export function stepFields(world: AutomationWorld, automationUtr: string, fields: Record<string, string | number> = {}): Record<string, string | number> {
  return {
    utr: automationUtr,
    sender_id: world.senderId,
    subject: 'Welcome aboard',
    waiting_period: 0,
    waiting_type: 'instantly',
    template_id: 2,
    preview_img: 'newsletter.svg',
    ...fields,
  };
}

/** Add a step through the API. */
export async function addStep(world: AutomationWorld, automationUtr: string, fields: Record<string, string | number> = {}): Promise<void> {
  const result = await call(world.keys, 'POST', 'automations/schedule/create', { body: multipart(stepFields(world, automationUtr, fields)) });
  if (result.status !== 200) throw new Error(`step create failed: ${JSON.stringify(result.body)}`);
}

export async function schedulesOf(world: AutomationWorld, automationUtr: string): Promise<Record<string, unknown>[]> {
  const result = await call(world.keys, 'GET', 'automations/schedule', { query: { utr: automationUtr } });
  return (result.body.message as { automation_schedules: Record<string, unknown>[] }).automation_schedules;
}

export async function detailsOf(world: AutomationWorld, automationUtr: string): Promise<Record<string, unknown>> {
  const result = await call(world.keys, 'GET', 'automations/details', { query: { utr: automationUtr } });
  return (result.body.message as { automation: Record<string, unknown> }).automation;
}

export async function listOf(world: AutomationWorld): Promise<Record<string, unknown>[]> {
  const result = await call(world.keys, 'GET', 'automations');
  return (result.body.message as { automations: Record<string, unknown>[] }).automations;
}
