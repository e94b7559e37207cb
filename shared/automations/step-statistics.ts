// The per-step answer of `automations/stats`: each step of an automation with its counters (step-counters.ts).
import { getAutomation } from './repository';
import { readStepCounts, type StepCounts } from './step-counters';
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
  const counts = await readStepCounts(accountId, steps.map((step) => step.utr));
  return steps.map((step) => ({ id: step.id, subject: step.subject, ...(counts.get(step.utr) as StepCounts) }));
}
