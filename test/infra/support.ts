// Shared by the infra tests: one synthesis per test file (bundling only where a test reads the bundles)
// and readers for the parts of the template the tests look at.
import { App } from 'aws-cdk-lib';
import { Template } from 'aws-cdk-lib/assertions';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { cdkJsonContext } from '../../infra/stack/cdk-json-context';
import { createEmailCampaignStack, type EmailCampaignStack } from '../../infra/stack/email-campaign-stack';

export interface PolicyStatement {
  Effect?: string;
  Action: string | string[];
  Resource: unknown;
  Condition?: Record<string, unknown>;
}

export interface Synthesized {
  app: App;
  stack: EmailCampaignStack;
  template: Template;
}

/** The stack as `cdk synth` builds it; without `bundle`, esbuild is skipped (the template is the same but for asset hashes). */
export function synthesize(context: Record<string, unknown> = {}, options: { bundle?: boolean } = {}): Synthesized {
  const app = new App({
    // `npm run synth` runs CloudFormation's own checks; here they would only cost time.
    builtinCloudFormationValidation: false,
    context: { ...cdkJsonContext(), ...(options.bundle ? {} : { [BUNDLING_STACKS]: [] }), ...context },
  });
  const stack = createEmailCampaignStack(app);
  return { app, stack, template: Template.fromStack(stack) };
}

export const actionsOf = (statement: PolicyStatement): string[] => (Array.isArray(statement.Action) ? statement.Action : [statement.Action]);

/** Every statement of the one policy attached to a function's role. */
export function policyStatementsOf({ stack, template }: Synthesized, name: string): PolicyStatement[] {
  const role = stack.resolve(stack.functions.functionOf(name).role?.roleName) as unknown;
  const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { Roles: [role] } }));
  expect(policies).toHaveLength(1);
  return (policies[0] as { Properties: { PolicyDocument: { Statement: PolicyStatement[] } } }).Properties.PolicyDocument.Statement;
}

/** The statements of a function's policy that grant (allow) any action starting with `prefix`. */
export function statementsFor(synthesized: Synthesized, name: string, prefix: string): PolicyStatement[] {
  return policyStatementsOf(synthesized, name).filter((statement) => statement.Effect === 'Allow' && actionsOf(statement).some((action) => action.startsWith(prefix)));
}

/** The statements of a function's policy that deny any action starting with `prefix`. */
export function denialsFor(synthesized: Synthesized, name: string, prefix: string): PolicyStatement[] {
  return policyStatementsOf(synthesized, name).filter((statement) => statement.Effect === 'Deny' && actionsOf(statement).some((action) => action.startsWith(prefix)));
}

/**
 * Each action of the function's grants with the prefix, and the resources it is granted on (resolved,
 * as JSON, sorted), whichever statements carry it: IAM policy minimization may merge two statements
 * whose resources are the same.
 */
export function grantsFor(synthesized: Synthesized, name: string, prefix: string): Record<string, string[]> {
  const grants: Record<string, Set<string>> = {};
  for (const statement of statementsFor(synthesized, name, prefix)) {
    const resolved = synthesized.stack.resolve(statement.Resource) as unknown;
    const resources = (Array.isArray(resolved) ? resolved : [resolved]).map((resource) => JSON.stringify(resource));
    for (const action of actionsOf(statement).filter((candidate) => candidate.startsWith(prefix))) {
      for (const resource of resources) (grants[action] ??= new Set()).add(resource);
    }
  }
  return Object.fromEntries(Object.entries(grants).map(([action, resources]) => [action, [...resources].sort()]));
}

export function logicalIdOf({ stack }: Synthesized, name: string): string {
  const resolved = stack.resolve(stack.functions.functionOf(name).functionArn) as { 'Fn::GetAtt': [string, string] };
  return resolved['Fn::GetAtt'][0];
}

export interface FunctionProperties {
  Code: { S3Key: string };
  Environment: { Variables: Record<string, unknown> };
  LoggingConfig: { LogGroup: unknown };
  [key: string]: unknown;
}

export function functionProperties(synthesized: Synthesized, name: string): FunctionProperties {
  return (synthesized.template.toJSON().Resources[logicalIdOf(synthesized, name)] as { Properties: FunctionProperties }).Properties;
}
