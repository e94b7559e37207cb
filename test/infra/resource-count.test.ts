// The stack stays well under CloudFormation's 500 resources per stack, so new routes and functions
// have room: at most 300 (60% of the limit), counted as the deployed template has them. SES's
// deliveries through a delivery stream and an archive bucket took it to 307; each function's errors
// and throttles then shared one alarm (infra/stack/monitoring.ts), 31 fewer.
import { synthesize } from './support';

/** Resources the stack may have: 60% of CloudFormation's 500 per stack. */
const resourceBudget = 300;

test(`the stack has at most ${resourceBudget} resources`, () => {
  const resources = Object.values(synthesize().template.toJSON().Resources as Record<string, { Type: string }>);
  const byType = new Map<string, number>();
  for (const { Type } of resources) byType.set(Type, (byType.get(Type) ?? 0) + 1);
  const report = [...byType].sort(([, a], [, b]) => b - a).map(([type, count]) => `${count} ${type}`).join(', ');

  // Over budget, Jest prints the count and what makes it up.
  expect(resources.length <= resourceBudget ? 'within budget' : `${resources.length} resources, over ${resourceBudget}: ${report}`).toBe('within budget');
});
