// Automation steps (the spec's automation schedules: one email of an automation each): every table
// access for them. Steps live in their automation's partition in step order; a small pointer item
// per step finds it by its utr alone. A step's design lives in an item of its own (keys.ts), so the
// step's own item stays small; steps stored before that keep their design inline until upgraded.
import { randomUUID } from 'node:crypto';
import { isoTimestamp } from '../time';
import { RecordNotFound } from '../table/errors';
import { nextId, reserveIds } from '../table/ids';
import { AUTOMATION_STEP, automationKey, automationStepDesignKey, automationStepKey, automationStepPartition, automationStepUtrKey, isUuidUtr } from './keys';
import { stepCounterCreations, stepCounterDeletes } from './step-counters';
import { queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { getItem, getItems, putItem, queryAll, queryPage, withoutKeys, type Item } from '../table/records';
import { committed, packTransactions, transactWrite, type TransactionAction } from '../table/transactions';

export const waitingTypes = ['instantly', 'days', 'hours'] as const;
export type WaitingType = (typeof waitingTypes)[number];

/** What a client sets on a new step. */
export interface AutomationStepInput {
  sender_id: number;
  template_id: number;
  subject: string;
  waiting_period: number;
  waiting_type: WaitingType;
  preview_img: string;
  /** At most one of the two designs is set; the other stays null. */
  template_json: string | null;
  template_html: string | null;
}

/** A step as stored, in the spec's field order (the public links are added by the API). */
export interface AutomationStep extends AutomationStepInput {
  id: number;
  user_id: number;
  automation_id: number;
  utr: string;
  created_at: string;
  updated_at: string;
}

/** The design fields, kept in the step's design item. */
export type StepDesign = Pick<AutomationStep, 'template_json' | 'template_html'>;

/** A step without its design: what enrolment, the runner and statistics need, read from small items. */
export type AutomationStepSummary = Omit<AutomationStep, keyof StepDesign>;

/** A step with the utr of its automation, which the table keys need and the output never shows. */
export interface StoredAutomationStep {
  step: AutomationStep;
  automationUtr: string;
}

/** The automation a step belongs to: its utr (for keys) and id (for the step's `automation_id`). */
export interface StepOwner {
  utr: string;
  id: number;
}

export { isUuidUtr };

// Each transaction holds at most 100 actions; a step's delete costs eleven (step, pointer, design and
// its 8 counter shards), plus one for the automation's step count.
const stepsPerTransaction = 9;

/** Marks a step item whose design is in its design item; a step item without it holds its design itself. */
const designApart = 'design_apart';

function toSummary(item: Item): AutomationStepSummary {
  const record = withoutKeys<Partial<AutomationStep>>(item);
  return {
    id: Number(record.id),
    user_id: Number(record.user_id),
    automation_id: Number(record.automation_id),
    sender_id: Number(record.sender_id),
    template_id: Number(record.template_id),
    subject: record.subject as string,
    waiting_period: Number(record.waiting_period),
    waiting_type: record.waiting_type as WaitingType,
    utr: record.utr as string,
    preview_img: record.preview_img as string,
    created_at: record.created_at as string,
    updated_at: record.updated_at as string,
  };
}

function designOf(item: Item): StepDesign {
  return { template_json: (item.template_json as string | null | undefined) ?? null, template_html: (item.template_html as string | null | undefined) ?? null };
}

/** The summary's fields in the spec's order, with the design in its place. */
function withDesign(summary: AutomationStepSummary, design: StepDesign): AutomationStep {
  const { created_at, updated_at, ...rest } = summary;
  return { ...rest, ...design, created_at, updated_at };
}

function stepItem(accountId: number, owner: StepOwner, step: AutomationStepSummary): Item {
  return { ...automationStepKey(accountId, owner.utr, step.id), entity: AUTOMATION_STEP, automation_utr: owner.utr, ...step, [designApart]: 1 };
}

function designItem(accountId: number, automationUtr: string, step: AutomationStep): Item {
  return { ...automationStepDesignKey(accountId, automationUtr, step.id), entity: `${AUTOMATION_STEP}-design`, step_utr: step.utr, template_json: step.template_json, template_html: step.template_html };
}

function summaryOf(step: AutomationStep): AutomationStepSummary {
  const { template_json: _json, template_html: _html, ...summary } = step;
  return summary;
}

/** The step's item, its utr pointer and its counter shards, all new (its design item is written before them). */
function stepPuts(accountId: number, owner: StepOwner, step: AutomationStep): TransactionAction[] {
  return [
    { Put: { Item: stepItem(accountId, owner, summaryOf(step)), ConditionExpression: 'attribute_not_exists(pk)' } },
    {
      Put: {
        Item: { ...automationStepUtrKey(accountId, step.utr), entity: `${AUTOMATION_STEP}-utr`, automation_utr: owner.utr, step_id: step.id },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...stepCounterCreations(accountId, step.utr),
  ];
}

function stepDeletes(accountId: number, automationUtr: string, step: AutomationStepSummary): TransactionAction[] {
  return [
    { Delete: { Key: automationStepKey(accountId, automationUtr, step.id), ConditionExpression: 'attribute_exists(pk)' } },
    { Delete: { Key: automationStepUtrKey(accountId, step.utr), ConditionExpression: 'attribute_exists(pk)' } },
    // No condition: a step stored with its design inline has no design item.
    { Delete: { Key: automationStepDesignKey(accountId, automationUtr, step.id) } },
    // With the step: a count after it finds no pointer and makes no shard (step-counters.ts).
    ...stepCounterDeletes(accountId, step.utr),
  ];
}

/**
 * Write a step's design item on its own, before the step that points to it: a design may be 350 KB,
 * so designs never share a transaction (4 MB in all). One left behind by a step write that failed
 * is overwritten by nothing and read by nothing (its step id is never handed out again).
 */
async function putDesign(accountId: number, automationUtr: string, step: AutomationStep): Promise<void> {
  await putItem({ Item: designItem(accountId, automationUtr, step) });
}

/**
 * A step's design, from its design item, or from the step's own item for a step stored with its
 * design inline (before designs had items of their own). Empty when the step is gone.
 */
export async function readStepDesign(accountId: number, automationUtr: string, stepId: number): Promise<StepDesign> {
  const apart = await getItem(automationStepDesignKey(accountId, automationUtr, stepId));
  if (apart) return designOf(apart);
  const inline = await getItem(automationStepKey(accountId, automationUtr, stepId));
  return designOf(inline ?? {});
}

/** Steps with their designs: one BatchGet of the design items (the API's listing). */
async function withDesigns(accountId: number, automationUtr: string, items: Item[]): Promise<AutomationStep[]> {
  const apart = items.filter((item) => item[designApart] !== undefined);
  const designs = new Map((await getItems(apart.map((item) => automationStepDesignKey(accountId, automationUtr, Number(item.id))))).map((item) => [String(item.sk), item]));
  return items.map((item) => withDesign(toSummary(item), designOf(item[designApart] === undefined ? item : (designs.get(String(item.sk)) ?? {}))));
}

/**
 * Move the automation's `automation_schedule_count` with its steps, in the same transaction. Only an
 * automation that exists and is not being deleted takes new steps, so none is left behind by a delete.
 */
function stepCountChange(accountId: number, automationUtr: string, delta: number, acceptingSteps: boolean): TransactionAction {
  return {
    Update: {
      Key: automationKey(accountId, automationUtr),
      UpdateExpression: 'ADD #count :delta',
      ConditionExpression: acceptingSteps ? 'attribute_exists(pk) AND attribute_not_exists(#closing)' : 'attribute_exists(pk)',
      ExpressionAttributeNames: acceptingSteps ? { '#count': 'automation_schedule_count', '#closing': 'closing' } : { '#count': 'automation_schedule_count' },
      ExpressionAttributeValues: { ':delta': delta },
    },
  };
}

async function transact(actions: TransactionAction[], notFound: () => RecordNotFound): Promise<void> {
  if (!(await committed(transactWrite(actions)))) throw notFound();
}

/** An automation's steps in step order, without their designs (small items: no design is read). */
export async function listAutomationSteps(accountId: number, automationUtr: string): Promise<AutomationStepSummary[]> {
  return (await queryAll({ partition: automationStepPartition(accountId, automationUtr) })).map(toSummary);
}

/** The first step's waiting period, from one small item (what enrolling needs); undefined without steps. */
export async function firstStepWait(accountId: number, automationUtr: string): Promise<Pick<AutomationStep, 'waiting_type' | 'waiting_period'> | undefined> {
  const [first] = (await queryPage({ partition: automationStepPartition(accountId, automationUtr), limit: 1 })).items;
  return first && { waiting_type: first.waiting_type as WaitingType, waiting_period: Number(first.waiting_period) };
}

/** One page of an automation's steps, in step order, with their designs. */
export async function listAutomationStepsPage(accountId: number, automationUtr: string, page: PageRequest): Promise<ListPage<AutomationStep>> {
  const found = await queryListPage({ partition: automationStepPartition(accountId, automationUtr) }, page);
  return { items: await withDesigns(accountId, automationUtr, found.items), nextCursor: found.nextCursor };
}

/** Add a step at the end of an automation; RecordNotFound when the automation is gone (or being deleted). */
export async function addAutomationStep(accountId: number, owner: StepOwner, input: AutomationStepInput): Promise<AutomationStep> {
  const now = isoTimestamp();
  const step: AutomationStep = {
    id: await nextId(accountId, AUTOMATION_STEP),
    user_id: accountId,
    automation_id: owner.id,
    ...input,
    utr: randomUUID(),
    created_at: now,
    updated_at: now,
  };
  await putDesign(accountId, owner.utr, step);
  await transact([...stepPuts(accountId, owner, step), stepCountChange(accountId, owner.utr, 1, true)], () => new RecordNotFound('automation', owner.utr));
  return step;
}

/** A step by its utr, with its automation's utr; RecordNotFound when the account has no such step. */
export async function getAutomationStep(accountId: number, stepUtr: string): Promise<StoredAutomationStep> {
  if (!isUuidUtr(stepUtr)) throw new RecordNotFound(AUTOMATION_STEP, stepUtr);
  const pointer = await getItem(automationStepUtrKey(accountId, stepUtr));
  const automationUtr = pointer?.automation_utr as string | undefined;
  const item = automationUtr ? await getItem(automationStepKey(accountId, automationUtr, Number(pointer?.step_id))) : undefined;
  if (!automationUtr || !item) throw new RecordNotFound(AUTOMATION_STEP, stepUtr);
  const [step] = await withDesigns(accountId, automationUtr, [item]);
  return { step: step as AutomationStep, automationUtr };
}

/** A step's subject, from its small items (never its design); undefined when the account has no such step. */
export async function automationStepSubject(accountId: number, stepUtr: string): Promise<string | undefined> {
  if (!isUuidUtr(stepUtr)) return undefined;
  const pointer = await getItem(automationStepUtrKey(accountId, stepUtr));
  if (typeof pointer?.automation_utr !== 'string') return undefined;
  const item = await getItem(automationStepKey(accountId, pointer.automation_utr, Number(pointer.step_id)), { projection: ['subject'] });
  return typeof item?.subject === 'string' ? item.subject : undefined;
}

/** Delete one step and lower its automation's count with it. */
export async function deleteAutomationStep(accountId: number, stepUtr: string): Promise<void> {
  const { step, automationUtr } = await getAutomationStep(accountId, stepUtr);
  await transact(
    [...stepDeletes(accountId, automationUtr, step), stepCountChange(accountId, automationUtr, -1, false)],
    () => new RecordNotFound(AUTOMATION_STEP, stepUtr),
  );
}

/** Delete every step of an automation, a transaction per group, each lowering the count with its steps. */
export async function deleteStepsOfAutomation(accountId: number, automationUtr: string): Promise<number> {
  const steps = await listAutomationSteps(accountId, automationUtr);
  for (let start = 0; start < steps.length; start += stepsPerTransaction) {
    const group = steps.slice(start, start + stepsPerTransaction);
    await transact(
      [...group.flatMap((step) => stepDeletes(accountId, automationUtr, step)), stepCountChange(accountId, automationUtr, -group.length, false)],
      () => new RecordNotFound(AUTOMATION_STEP, automationUtr),
    );
  }
  return steps.length;
}

/**
 * Copy an automation's steps onto another automation (duplicate) with new ids and utrs, in the same
 * order. The copies are written before their automation exists: `automation_schedule_count` is set
 * when the automation item itself is put, so the copy appears complete or not at all. Each design is
 * read and written on its own, so no transaction carries more than small step items.
 */
export async function copyAutomationSteps(accountId: number, fromUtr: string, owner: StepOwner): Promise<number> {
  const summaries = await listAutomationSteps(accountId, fromUtr);
  if (summaries.length === 0) return 0;
  const steps: AutomationStep[] = [];
  for (const summary of summaries) steps.push(withDesign(summary, await readStepDesign(accountId, fromUtr, summary.id)));
  const firstId = await reserveIds(accountId, AUTOMATION_STEP, steps.length);
  const now = isoTimestamp();
  const copies = steps.map((step, i): AutomationStep => ({
    ...step,
    id: firstId + i,
    automation_id: owner.id,
    utr: randomUUID(),
    created_at: now,
    updated_at: now,
  }));
  // Designs go on their own; the step puts are packed by size as well as count.
  for (const copy of copies) await putDesign(accountId, owner.utr, copy);
  for (const group of packTransactions(copies, (step) => stepPuts(accountId, owner, step))) {
    await transact(group.flatMap((step) => stepPuts(accountId, owner, step)), () => new RecordNotFound(AUTOMATION_STEP, owner.utr));
  }
  return copies.length;
}
