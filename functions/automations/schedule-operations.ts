// Automation schedule (step) operations: list an automation's steps, add one, delete one.
import { addAutomationStep, deleteAutomationStep, listAutomationStepsPage, waitingTypes, type AutomationStep, type WaitingType } from '../../shared/automations/steps';
import { getAutomation, type Automation } from '../../shared/automations/repository';
import { RecordNotFound } from '../../shared/table/errors';
import { getSender } from '../../shared/senders/repository';
import { findDesignTemplate } from '../../shared/templates/repository';
import { unsafeDesignHtmlMessage, unsafeDesignJsonMessage } from '../../shared/rendering/design-link-rule';
import { ValidationError } from '../../shared/errors';
import { on } from '../../shared/http/error-registry';
import { accountOperation } from '../../shared/http/pipeline';
import { pageOf, pageQuery, withNextCursor } from '../../shared/http/pages';
import { ok } from '../../shared/http/reply';
import { mapPage } from '../../shared/table/pages';
import { attributeName, format, integer, messages, string, validate } from '../../shared/validation';
import { validateWithReferences } from './references';
import { stepLinks } from './step-preview';

/** A design must fit one table item (400 KB) beside the step's other fields. */
export const maxDesignKilobytes = 350;

function designText(field: string) {
  return string().check((text) =>
    Buffer.byteLength(text, 'utf8') > maxDesignKilobytes * 1024
      ? `The ${attributeName(field)} field must not be greater than ${maxDesignKilobytes} kilobytes.`
      : undefined,
  );
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

export const createSchema = {
  utr: string().required(),
  sender_id: integer().required(),
  subject: string().required().max(998),
  waiting_period: integer().required().min(0).max(36500),
  waiting_type: string().required().in(waitingTypes),
  template_id: integer().required(),
  preview_img: string().required().max(255),
  template_json: designText('template_json')
    .check((text) => (isJson(text) ? undefined : 'The template json field must be a valid JSON string.'))
    .check(unsafeDesignJsonMessage('template json')),
  template_html: designText('template_html').check(unsafeDesignHtmlMessage('template html')),
};

async function exists(find: () => Promise<unknown>): Promise<boolean> {
  try {
    await find();
    return true;
  } catch (error) {
    if (error instanceof RecordNotFound) return false;
    throw error;
  }
}

function withLinks(accountId: number, step: AutomationStep) {
  return { ...step, ...stepLinks(accountId, step.utr) };
}

export const schedules = accountOperation(async ({ account, request }) => {
  const input = validate(request.query, { utr: string().required(), ...pageQuery() });
  await getAutomation(account.id, input.utr);
  const steps = await mapPage(await listAutomationStepsPage(account.id, input.utr, pageOf(input)), (step) => withLinks(account.id, step));
  return ok(withNextCursor('automation_schedules', steps));
});

/** The automation deleted between the reference check and the write: the same answer as an unknown utr. */
const automationGone = on(RecordNotFound, () => ValidationError.of('utr', format(messages.exists, { attribute: 'utr' })));

export const createSchedule = accountOperation(async ({ account, request }) => {
  let automation: Automation | undefined;
  const input = await validateWithReferences(request.fields, createSchema, {
    utr: async (utr) => exists(async () => (automation = await getAutomation(account.id, utr))),
    sender_id: (id) => exists(() => getSender(account.id, id)),
    template_id: async (id) => findDesignTemplate(id) !== undefined,
  });
  if (input.template_json !== undefined && input.template_html !== undefined) {
    throw ValidationError.of('template_html', 'The template html field prohibits template json from being present.');
  }
  const owner = automation as Automation;
  await addAutomationStep(account.id, { utr: owner.utr, id: owner.id }, {
    sender_id: input.sender_id,
    template_id: input.template_id,
    subject: input.subject,
    waiting_period: input.waiting_period,
    waiting_type: input.waiting_type as WaitingType,
    preview_img: input.preview_img,
    template_json: input.template_json ?? null,
    template_html: input.template_html ?? null,
  });
  return ok('Schedule Added');
}, { errors: [automationGone] });

export const deleteSchedule = accountOperation(async ({ account, request }) => {
  const { utr } = validate(request.query, { utr: string().required() });
  await deleteAutomationStep(account.id, utr);
  return ok('Deleted Successfully');
});
