// Automation operations: list, create, duplicate, details, per-step statistics, pause, set-live, delete, bulk-delete.
import {
  addAutomation,
  automationTypes,
  deleteAutomation,
  deleteAutomations,
  duplicateAutomation,
  exitCriteria,
  getAutomation,
  listAutomationsPage,
  pauseAutomation,
  setAutomationLive,
  type AutomationTarget,
  type AutomationTypeName,
} from '../../shared/automations/repository';
import { automationWentLive } from '../../shared/automation-runs/going-live';
import { clearReputationPause } from '../../shared/automations/reputation-pause';
import { automationDetails } from '../../shared/automations/sender-hold';
import { automationStepStatistics } from '../../shared/automations/step-statistics';
import { contactTypeExists } from '../../shared/contact-types/repository';
import { segmentExists } from '../../shared/segments/repository';
import { unsubscribeGroupExists } from '../../shared/suppressions/unsubscribe-groups';
import { Conflict } from '../../shared/errors';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { array, Field, format, integer, maxBulkIds, messages, string, validate } from '../../shared/validation';
import { validateWithReferences } from './references';
import { parseAutomationTarget } from './target';

/** The spec's failure text of set-live when the automation has no usable unsubscribe group. */
export const groupRequiredText = 'Unsubscribe group require to live automation';

export const utrQuery = { utr: string().required() };

export const createSchema = {
  type: string()
    .required()
    .in(Object.keys(automationTypes) as AutomationTypeName[]),
  automation_for: string()
    .max(255)
    .check((text) => (parseAutomationTarget(text) ? undefined : format(messages.in, { attribute: 'automation for' }))),
  automation_name: string().max(255),
  unsubscribe_group_id: integer().required(),
  exit_criteria: integer().in(Object.values(exitCriteria)),
};

function targetExists(accountId: number, target: AutomationTarget): Promise<boolean> {
  return target.table === 'contacts_' ? contactTypeExists(accountId, target.id) : segmentExists(accountId, target.id);
}

/** A bulk-delete entry: an integer id, or a utr. */
const automationIdentifier = new Field<number | string>((value) => {
  if (typeof value === 'number') return Number.isSafeInteger(value) ? { ok: true, value } : { ok: false, key: 'integer' };
  if (typeof value !== 'string') return { ok: false, key: 'string' };
  const text = value.trim();
  return { ok: true, value: /^\d{1,15}$/.test(text) ? Number(text) : text };
}).required();

export const strIds = array(automationIdentifier).required().min(1).max(maxBulkIds);

export const list = accountOperation(async ({ account, request }) =>
  ok(withNextCursor('automations', await listAutomationsPage(account.id, pageOf(validate(request.query, pageQuery()))))),
);

export const create = accountOperation(async ({ account, request }) => {
  const input = await validateWithReferences(request.fields, createSchema, {
    automation_for: (text) => targetExists(account.id, parseAutomationTarget(text) as AutomationTarget),
    unsubscribe_group_id: (id) => unsubscribeGroupExists(account.id, id),
  });
  const automation = await addAutomation(account.id, {
    type: input.type as AutomationTypeName,
    target: input.automation_for === undefined ? null : (parseAutomationTarget(input.automation_for) ?? null),
    automation_name: input.automation_name ?? null,
    unsubscribe_group_id: input.unsubscribe_group_id,
    exit_criteria: input.exit_criteria ?? exitCriteria.afterLastStep,
  });
  return ok({ utr: automation.utr });
});

export const duplicate = accountOperation(async ({ account, request }) => {
  const { utr } = validate(request.query, utrQuery);
  const copy = await duplicateAutomation(account.id, utr);
  return ok({ utr: copy.utr });
});

export const details = accountOperation(async ({ account, request }) => {
  const { utr } = validate(request.query, utrQuery);
  return ok({ automation: await automationDetails(await getAutomation(account.id, utr)) });
});

export const stats = accountOperation(async ({ account, request }) => {
  const { utr } = validate(request.query, utrQuery);
  return ok({ steps: await automationStepStatistics(account.id, utr) });
});

export const pause = accountOperation(async ({ account, request }) => {
  const { utr } = validate(request.query, utrQuery);
  await pauseAutomation(account.id, utr);
  return ok('Automation Paused Successfully');
});

export const setLive = accountOperation(async ({ account, request }) => {
  const { utr } = validate(request.query, utrQuery);
  const automation = await getAutomation(account.id, utr);
  // The group is stored as text; it is usable only while it still exists in the account.
  const groupId = /^\d{1,15}$/.test(automation.unsubscribe_group_id) ? Number(automation.unsubscribe_group_id) : undefined;
  if (groupId === undefined || !(await unsubscribeGroupExists(account.id, groupId))) throw new Conflict(groupRequiredText);
  // One paused for its reputation drops its reason first; its rates are judged afresh from here.
  await clearReputationPause(account.id, utr);
  // Answers at once; a background job resumes parked enrolments and enrols a custom automation's
  // members (shared/automation-runs/going-live.ts).
  await automationWentLive(account.id, await setAutomationLive(account.id, utr));
  return ok('Automation has been set live');
});

export const remove = accountOperation(async ({ account, request }) => {
  const { utr } = validate(request.query, utrQuery);
  await deleteAutomation(account.id, utr);
  return ok('Deleted Successfully');
});

export const bulkDelete = accountOperation(async ({ account, request }) => {
  const input = validate(request.fields, { strIds });
  await deleteAutomations(account.id, input.strIds);
  return ok('Deleted Successfully');
});
