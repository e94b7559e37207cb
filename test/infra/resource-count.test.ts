// The stack stays well under CloudFormation's 500 resources per stack, so new routes and functions
// have room: at most 320 (64% of the limit), counted as the deployed template has them. It was 300
// until SES's deliveries went through a delivery stream and an archive bucket (8 resources: the
// bucket and its policy, the stream and its role, its rule and the role EventBridge puts records as,
// the rule of the bucket's objects).
import { synthesize } from './support';

/** Resources the stack may have: 64% of CloudFormation's 500 per stack. */
const resourceBudget = 320;

test(`the stack has at most ${resourceBudget} resources`, () => {
  const resources = Object.values(synthesize().template.toJSON().Resources as Record<string, { Type: string }>);
  const byType = new Map<string, number>();
  for (const { Type } of resources) byType.set(Type, (byType.get(Type) ?? 0) + 1);
  const report = [...byType].sort(([, a], [, b]) => b - a).map(([type, count]) => `${count} ${type}`).join(', ');

  // Over budget, Jest prints the count and what makes it up.
  expect(resources.length <= resourceBudget ? 'within budget' : `${resources.length} resources, over ${resourceBudget}: ${report}`).toBe('within budget');
});
