// One step of an automation as the port for what can be sent (ledger/sendable.ts): each count goes to
// the automation's totals (the spec's `total_*`) and to the step's own line of `automations/stats`,
// where each has one.
import type { Sendable, SendCounter, SendCounts } from '../ledger/sendable';
import type { SendRef } from '../ledger/send-ref';
import { addAutomationTotals, type AutomationTotal, type AutomationTotalsChange } from './totals';
import { addStepCounts, type StepCounter, type StepCounts } from './step-counters';

/** The automation's total of each counter (the spec's automation has no complaints and no clicks; its opens are people's). */
const totalOf: Partial<Record<SendCounter, AutomationTotal>> = {
  triggered: 'total_triggered',
  delivered: 'total_delivered',
  bounces: 'total_bounces',
  opens: 'total_opens',
  unique_opens: 'total_unique_opens',
  unsubscribes: 'total_unsubscribe',
};

/** The step's counter of each (a step's line shows no triggered). */
const stepCounterOf: Partial<Record<SendCounter, StepCounter>> = {
  delivered: 'delivered',
  bounces: 'bounces',
  complaints: 'complaints',
  opens: 'opens',
  unique_opens: 'unique_opens',
  machine_opens: 'machine_opens',
  clicks: 'clicks',
  unique_clicks: 'unique_clicks',
  bot_clicks: 'bot_clicks',
  unsubscribes: 'unsubscribes',
};

function renamed<Name extends string>(counts: SendCounts, names: Partial<Record<SendCounter, Name>>): Partial<Record<Name, number>> {
  const result: Partial<Record<Name, number>> = {};
  for (const [counter, value] of Object.entries(counts) as [SendCounter, number][]) {
    const name = names[counter];
    if (name !== undefined) result[name] = value;
  }
  return result;
}

export function automationStepSendable(ref: SendRef & { kind: 'automation-step' }): Sendable {
  return {
    ref,
    async addCounts(counts) {
      const totals: AutomationTotalsChange = renamed(counts, totalOf);
      const step: Partial<StepCounts> = renamed(counts, stepCounterOf);
      // Each is false when its item is gone: the event is dropped there. A click counts on the step alone.
      const [totalsCounted, stepCounted] = await Promise.all([addAutomationTotals(ref.accountId, ref.automationUtr, totals), addStepCounts(ref.accountId, ref.stepUtr, step)]);
      return Object.keys(step).length > 0 ? stepCounted : totalsCounted;
    },
  };
}
