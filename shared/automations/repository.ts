// Automations (drip sequences over a contact type or a segment): every table access for the
// automation items and their state changes; their totals are counter shards of their own (totals.ts).
import { randomUUID } from 'node:crypto';
import { currentTime, isoTimestamp, sqlTimestamp } from '../time';
import { copyAutomationSteps, deleteStepsOfAutomation, isUuidUtr } from './steps';
import { deleteEnrolments } from './enrolments';
import { RecordNotFound } from '../table/errors';
import { nextId } from '../table/ids';
import { AUTOMATION, automationIdIndexKey, automationIdIndexPartition, automationKey, automationPartition } from './keys';
import { type Key } from '../table/keys';
import { mapPage, queryListPage, type ListPage, type PageRequest } from '../table/pages';
import { conditionHeld, getItem, queryAll, updateExistingItem, updateItem, withoutKeys, type Item } from '../table/records';
import { committed, transactWrite } from '../table/transactions';
import { automationTotalsCreations, automationTotalsDeletes, automationTotalsOf, automationTotals, type AutomationTotal, type AutomationTotals } from './totals';

/** `automation_type`: the spec's `type` input as an integer. */
export const automationTypes = { welcome: 1, custom: 2 } as const;
export type AutomationTypeName = keyof typeof automationTypes;

/**
 * `status`: the spec's 0 draft and 1 live, plus 2 paused, so resuming can tell a paused automation
 * (whose enrolments keep their place) from one that never ran.
 */
export const automationStatus = { draft: 0, live: 1, paused: 2 } as const;

/**
 * `exit_criteria`: 0 = an enrolment ends after the last step; 1 = it also ends when the contact
 * leaves the target (removed from the contact type or no longer matching the segment). Deleted and
 * unsubscribed contacts leave under either.
 */
export const exitCriteria = { afterLastStep: 0, whenLeavingTarget: 1 } as const;

/** The two kinds of target, as the spec writes their prefix in `automation_for_table`. */
export const automationTargetTables = ['contacts_', 'segments_'] as const;
export type AutomationTargetTable = (typeof automationTargetTables)[number];

export interface AutomationTarget {
  table: AutomationTargetTable;
  id: number;
}

/** What a client sets on create. */
export interface AutomationInput {
  type: AutomationTypeName;
  target: AutomationTarget | null;
  automation_name: string | null;
  unsubscribe_group_id: number;
  exit_criteria: number;
}

/** An automation as the spec shows it, in the spec's field order. */
export interface Automation {
  id: number;
  user_id: number;
  automation_for: number | null;
  automation_for_table: AutomationTargetTable | null;
  automation_name: string | null;
  exit_criteria: number;
  /** Text, as the spec has it; empty means no group. */
  unsubscribe_group_id: string;
  automation_type: number;
  utr: string;
  status: number;
  live_at: string | null;
  total_triggered: number;
  total_delivered: number;
  total_unique_opens: number;
  total_opens: number;
  total_bounces: number;
  total_unsubscribe: number;
  deleted_at: null;
  created_at: string;
  updated_at: string;
}

/** An automation without its totals: what enrolling needs, read from its item alone. */
export type AutomationSettings = Omit<Automation, AutomationTotal>;

function settingsOf(automation: Automation): AutomationSettings {
  const settings: Partial<Automation> = { ...automation };
  for (const name of automationTotals) delete settings[name];
  return settings as AutomationSettings;
}

const noTotals = Object.fromEntries(automationTotals.map((name) => [name, 0])) as AutomationTotals;

export interface AutomationWithCount extends Automation {
  automation_schedule_count: number;
}

function keyOf(accountId: number, utr: string): Key {
  if (!isUuidUtr(utr)) throw new RecordNotFound(AUTOMATION, utr);
  return automationKey(accountId, utr);
}

/** An automation as shown, its totals read from its counter shards (totals.ts). */
function toAutomation(item: Item, totals: AutomationTotals): Automation {
  const record = withoutKeys<Partial<Automation>>(item);
  return {
    id: Number(record.id),
    user_id: Number(record.user_id),
    automation_for: record.automation_for ?? null,
    automation_for_table: record.automation_for_table ?? null,
    automation_name: record.automation_name ?? null,
    exit_criteria: Number(record.exit_criteria ?? exitCriteria.afterLastStep),
    unsubscribe_group_id: String(record.unsubscribe_group_id ?? ''),
    automation_type: Number(record.automation_type),
    utr: record.utr as string,
    status: Number(record.status),
    live_at: record.live_at ?? null,
    total_triggered: totals.total_triggered,
    total_delivered: totals.total_delivered,
    total_unique_opens: totals.total_unique_opens,
    total_opens: totals.total_opens,
    total_bounces: totals.total_bounces,
    total_unsubscribe: totals.total_unsubscribe,
    deleted_at: null,
    created_at: record.created_at as string,
    updated_at: record.updated_at as string,
  };
}

/** The automation's item: its totals are not kept on it but in its counter shards (totals.ts), which start at zero. */
function automationItem(accountId: number, automation: Automation): Item {
  const stored: Item = { ...automation };
  for (const name of automationTotals) delete stored[name];
  return { ...automationKey(accountId, automation.utr), ...automationIdIndexKey(accountId, automation.id), entity: AUTOMATION, ...stored };
}

async function putAutomation(accountId: number, automation: Automation, scheduleCount: number): Promise<void> {
  await transactWrite([
    { Put: { Item: { ...automationItem(accountId, automation), automation_schedule_count: scheduleCount }, ConditionExpression: 'attribute_not_exists(pk)' } },
    ...automationTotalsCreations(accountId, automation.utr),
  ]);
}

/** One page of the account's automations in id order (the id index: their items are keyed by utr). */
export async function listAutomationsPage(accountId: number, page: PageRequest): Promise<ListPage<AutomationWithCount>> {
  const found = await queryListPage({ partition: automationIdIndexPartition(accountId), index: 'gsi1' }, page);
  const totals = await automationTotalsOf(accountId, found.items);
  return mapPage(found, (item) => ({ ...toAutomation(item, totals.get(String(item.utr)) as AutomationTotals), automation_schedule_count: Number(item.automation_schedule_count ?? 0) }));
}

/** The account's live automations on one target (the automation engine enrols the target's joiners in them); their totals are not read. */
export async function liveAutomationsOn(accountId: number, target: AutomationTarget): Promise<AutomationSettings[]> {
  const items = await queryAll({ partition: automationPartition(accountId) });
  return items
    .filter((item) => item.automation_for_table === target.table && Number(item.automation_for) === target.id && Number(item.status) === automationStatus.live && item.closing === undefined)
    .map((item) => settingsOf(toAutomation(item, noTotals)));
}

/** One automation; RecordNotFound when the account has none with this utr. */
export async function getAutomation(accountId: number, utr: string): Promise<Automation> {
  const item = await getItem(keyOf(accountId, utr));
  if (!item) throw new RecordNotFound(AUTOMATION, utr);
  return toAutomation(item, (await automationTotalsOf(accountId, [item])).get(utr) as AutomationTotals);
}

export async function addAutomation(accountId: number, input: AutomationInput): Promise<Automation> {
  const now = isoTimestamp();
  const automation: Automation = {
    id: await nextId(accountId, AUTOMATION),
    user_id: accountId,
    automation_for: input.target?.id ?? null,
    automation_for_table: input.target?.table ?? null,
    automation_name: input.automation_name,
    exit_criteria: input.exit_criteria,
    unsubscribe_group_id: String(input.unsubscribe_group_id),
    automation_type: automationTypes[input.type],
    utr: randomUUID(),
    status: automationStatus.draft,
    live_at: null,
    total_triggered: 0,
    total_delivered: 0,
    total_unique_opens: 0,
    total_opens: 0,
    total_bounces: 0,
    total_unsubscribe: 0,
    deleted_at: null,
    created_at: now,
    updated_at: now,
  };
  await putAutomation(accountId, automation, 0);
  return automation;
}

/** A draft copy of an automation with copies of its steps and zeroed statistics. */
export async function duplicateAutomation(accountId: number, utr: string): Promise<Automation> {
  const original = await getAutomation(accountId, utr);
  const now = isoTimestamp();
  const copy: Automation = {
    ...original,
    ...Object.fromEntries(automationTotals.map((name) => [name, 0])),
    id: await nextId(accountId, AUTOMATION),
    utr: randomUUID(),
    status: automationStatus.draft,
    live_at: null,
    created_at: now,
    updated_at: now,
  };
  const copied = await copyAutomationSteps(accountId, utr, { utr: copy.utr, id: copy.id });
  await putAutomation(accountId, copy, copied);
  return copy;
}

/** Set a state on an automation when `condition` holds; false when it exists but the condition failed. */
async function changeState(accountId: number, utr: string, changes: Record<string, unknown>, condition: { expression: string; values: Record<string, unknown> }): Promise<boolean> {
  const names: Record<string, string> = { '#closing': 'closing', '#status': 'status' };
  const values: Record<string, unknown> = { ...condition.values };
  const sets = Object.entries(changes).map(([name, value], i) => {
    names[`#a${i}`] = name;
    values[`:v${i}`] = value;
    return `#a${i} = :v${i}`;
  });
  return conditionHeld(
    updateItem({
      Key: keyOf(accountId, utr),
      UpdateExpression: `SET ${sets.join(', ')}`,
      ConditionExpression: `attribute_exists(pk) AND attribute_not_exists(#closing) AND (${condition.expression})`,
      ExpressionAttributeNames: names,
      ExpressionAttributeValues: values,
    }),
  );
}

/** Pause a live automation; RecordNotFound when there is no live automation with this utr. */
export async function pauseAutomation(accountId: number, utr: string): Promise<void> {
  const paused = await changeState(
    accountId,
    utr,
    { status: automationStatus.paused, updated_at: isoTimestamp() },
    { expression: '#status = :live', values: { ':live': automationStatus.live } },
  );
  if (!paused) throw new RecordNotFound(AUTOMATION, utr);
}

/**
 * Set a draft or paused automation live and stamp `live_at`; an automation already live stays as it
 * is. Whether its unsubscribe group is usable is the caller's check, made before this.
 */
export async function setAutomationLive(accountId: number, utr: string): Promise<Automation> {
  const now = currentTime();
  await changeState(
    accountId,
    utr,
    { status: automationStatus.live, live_at: sqlTimestamp(now), updated_at: isoTimestamp(now) },
    { expression: '#status <> :live', values: { ':live': automationStatus.live } },
  );
  return getAutomation(accountId, utr);
}

/**
 * Delete an automation and its steps. It is first marked closing, so no step can be added while its
 * steps go; the item itself goes last, so a delete cut short leaves it in place and running the
 * delete again finishes the job.
 */
export async function deleteAutomation(accountId: number, utr: string): Promise<void> {
  const closing = await updateExistingItem(keyOf(accountId, utr), { closing: 1 });
  if (!closing) throw new RecordNotFound(AUTOMATION, utr);
  await deleteStepsOfAutomation(accountId, utr);
  await deleteEnrolments(accountId, utr);
  // Its counter shards go with the item: no count makes a shard once it is closing (totals.ts).
  const deleted = await committed(transactWrite([{ Delete: { Key: keyOf(accountId, utr), ConditionExpression: 'attribute_exists(pk)' } }, ...automationTotalsDeletes(accountId, utr)]));
  if (!deleted) throw new RecordNotFound(AUTOMATION, utr);
}

/**
 * Delete the automations named by integer id or by utr, or none when any is unknown: every name is
 * resolved (one Query of the account's automations) before anything is deleted.
 */
export async function deleteAutomations(accountId: number, identifiers: readonly (number | string)[]): Promise<void> {
  const items = await queryAll({ partition: automationPartition(accountId) });
  const byId = new Map(items.map((item) => [Number(item.id), String(item.utr)]));
  const utrs = new Set(items.map((item) => String(item.utr)));
  const targets = identifiers.map((identifier) => {
    const utr = typeof identifier === 'number' ? byId.get(identifier) : utrs.has(identifier) ? identifier : undefined;
    if (!utr) throw new RecordNotFound(AUTOMATION, identifier);
    return utr;
  });
  for (const utr of new Set(targets)) await deleteAutomation(accountId, utr);
}
