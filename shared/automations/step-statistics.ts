// The per-step answer of `automations/stats`: each step of an automation with its counters (step-counters.ts).
import { batchGetAll } from '../table/batch';
import { automationStepUtrKey } from './keys';
import { getAutomation } from './repository';
import { stepCounters, type StepCounts } from './step-counters';
import { listAutomationSteps } from './steps';

/** One step's line of `automations/stats`. */
export interface StepStatistics extends StepCounts {
  id: number;
  subject: string;
}

/** Each step of the automation in step order, with its counters; RecordNotFound when the account has no such automation. */
export async function automationStepStatistics(accountId: number, automationUtr: string): Promise<StepStatistics[]> {
  await getAutomation(accountId, automationUtr);
  const steps = await listAutomationSteps(accountId, automationUtr);
  const items = await batchGetAll(steps.map((step) => automationStepUtrKey(accountId, step.utr)));
  const byUtr = new Map(items.map((item) => [String(item.sk), item]));
  return steps.map((step) => {
    const item = byUtr.get(step.utr) ?? {};
    return { id: step.id, subject: step.subject, ...(Object.fromEntries(stepCounters.map((name) => [name, Number(item[name] ?? 0)])) as StepCounts) };
  });
}
