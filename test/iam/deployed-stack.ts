// The stack as the IAM check sees it: synthesized (without bundling) from a checkout's infra/stack,
// with a sender domain no test fixture uses, resolved to concrete values, and read per principal:
// each function's role policies and deployed environment, the other roles' policies, and the
// resource policies (Lambda permissions, queue policies, role trust policies).
import { join } from 'node:path';
import type { App, CfnElement, Stack } from 'aws-cdk-lib';
import { account, region, TemplateValues, type Template } from './template-values';

/** The stack's own sender domain in the checked template: no fixture sends From it, so a grant on it alone cannot pass for a customer's. */
export const checkedSenderDomain = 'mail.service-owner.test';

export interface PolicyDocument {
  Statement: Record<string, unknown>[];
}

export interface DeployedFunction {
  name: string;
  roleArn: string;
  roleId: string;
  functionArn: string;
  environment: Record<string, string>;
}

interface StackModule {
  createEmailCampaignStack(app: App): Stack & { functions: { byName: ReadonlyMap<string, { node: { defaultChild?: unknown } }> } };
}

export class DeployedStack {
  readonly functions = new Map<string, DeployedFunction>();
  readonly values: TemplateValues;

  constructor(readonly template: Template, functionIds: Map<string, string>) {
    this.values = new TemplateValues(template);
    for (const [name, logicalId] of functionIds) {
      const properties = this.values.resolve(this.values.resource(logicalId).Properties) as { Role: string; Environment?: { Variables?: Record<string, string> } };
      const roleId = (this.values.resource(logicalId).Properties?.Role as { 'Fn::GetAtt': [string, string] })['Fn::GetAtt'][0];
      this.functions.set(name, { name, roleArn: properties.Role, roleId, functionArn: this.values.getAtt(logicalId, 'Arn'), environment: properties.Environment?.Variables ?? {} });
    }
  }

  functionOf(name: string): DeployedFunction {
    const found = this.functions.get(name);
    if (!found) throw new Error(`The stack has no function ${name}`);
    return found;
  }

  /** The one table's ARN. */
  tableArn(): string {
    const tables = this.values.idsOf('AWS::DynamoDB::Table');
    if (tables.length !== 1) throw new Error(`Expected one table, found ${tables.length}`);
    return this.values.getAtt(tables[0] as string, 'Arn');
  }

  /** The SES identities the stack itself creates. */
  sesIdentities(): Set<string> {
    return new Set(this.values.idsOf('AWS::SES::EmailIdentity').map((id) => this.values.ref(id).toLowerCase()));
  }

  /** The ARN of the queue whose URL this is. */
  queueArnOfUrl(url: string): string {
    const id = this.values.idsOf('AWS::SQS::Queue').find((queue) => this.values.ref(queue) === url);
    if (!id) throw new Error(`No queue has the URL ${url}`);
    return this.values.getAtt(id, 'Arn');
  }

  roleIdOfArn(arn: string): string {
    const id = this.values.idsOf('AWS::IAM::Role').find((role) => this.values.getAtt(role, 'Arn') === arn);
    if (!id) throw new Error(`No role has the ARN ${arn}`);
    return id;
  }

  roleArn(roleId: string): string {
    return this.values.getAtt(roleId, 'Arn');
  }

  /** The identity policies of a role: its inline policies and every AWS::IAM::Policy attached to it. Managed policies are refused (the check cannot see them). */
  rolePolicies(roleId: string): { name: string; policy: PolicyDocument }[] {
    const role = this.values.resource(roleId).Properties ?? {};
    if (role.ManagedPolicyArns) throw new Error(`${roleId} has managed policies, which the check cannot read`);
    const inline = ((role.Policies as { PolicyName: string; PolicyDocument: unknown }[] | undefined) ?? []).map((policy) => ({
      name: policy.PolicyName,
      policy: this.values.resolve(policy.PolicyDocument) as PolicyDocument,
    }));
    const attached = this.values
      .idsOf('AWS::IAM::Policy')
      .filter((id) => ((this.values.resource(id).Properties?.Roles as unknown[]) ?? []).some((role) => JSON.stringify(role) === JSON.stringify({ Ref: roleId })))
      .map((id) => ({ name: id, policy: this.values.resolve(this.values.resource(id).Properties?.PolicyDocument) as PolicyDocument }));
    return [...inline, ...attached];
  }

  /** The trust policy of a role (who may assume it). */
  trustPolicy(roleId: string): PolicyDocument {
    return this.values.resolve(this.values.resource(roleId).Properties?.AssumeRolePolicyDocument) as PolicyDocument;
  }

  /** A function's resource policy, as Lambda builds it from the stack's AWS::Lambda::Permission resources. */
  functionPolicy(functionArn: string): PolicyDocument | undefined {
    const statements = this.values
      .idsOf('AWS::Lambda::Permission')
      .map((id) => this.values.resolve(this.values.resource(id).Properties) as Record<string, string>)
      .filter((permission) => permission.FunctionName === functionArn || `arn:aws:lambda:${region}:${account}:function:${permission.FunctionName}` === functionArn)
      .map((permission) => {
        const condition: Record<string, Record<string, string>> = {};
        if (permission.SourceArn) condition.ArnLike = { 'AWS:SourceArn': permission.SourceArn };
        if (permission.SourceAccount) condition.StringEquals = { 'AWS:SourceAccount': permission.SourceAccount };
        const principal = permission.Principal as string;
        return {
          Effect: 'Allow',
          Principal: principal.endsWith('.amazonaws.com') ? { Service: principal } : { AWS: principal },
          Action: permission.Action,
          Resource: functionArn,
          ...(Object.keys(condition).length > 0 ? { Condition: condition } : {}),
        };
      });
    return statements.length > 0 ? { Statement: statements } : undefined;
  }

  /** A queue's resource policy (AWS::SQS::QueuePolicy naming its URL). */
  queuePolicy(queueArn: string): PolicyDocument | undefined {
    const statements = this.values.idsOf('AWS::SQS::QueuePolicy').flatMap((id) => {
      const properties = this.values.resolve(this.values.resource(id).Properties) as { Queues: string[]; PolicyDocument: PolicyDocument };
      return properties.Queues.some((url) => this.queueArnOfUrl(url) === queueArn) ? properties.PolicyDocument.Statement : [];
    });
    return statements.length > 0 ? { Statement: statements } : undefined;
  }

  /** The resource policy of the bucket an S3 ARN (the bucket's or an object's) is in. */
  bucketPolicy(arn: string): PolicyDocument | undefined {
    const bucket = /^arn:aws:s3:::([^/]+)/.exec(arn)?.[1];
    const statements = this.values.idsOf('AWS::S3::BucketPolicy').flatMap((id) => {
      const properties = this.values.resolve(this.values.resource(id).Properties) as { Bucket: string; PolicyDocument: PolicyDocument };
      return properties.Bucket === bucket ? properties.PolicyDocument.Statement : [];
    });
    return statements.length > 0 ? { Statement: statements } : undefined;
  }

  /** Resources of a type, resolved. */
  resourcesOf(type: string): { id: string; properties: Record<string, unknown> }[] {
    return this.values.idsOf(type).map((id) => ({ id, properties: this.values.resolve(this.values.resource(id).Properties ?? {}) as Record<string, unknown> }));
  }
}

/** Synthesize the stack of the checkout at `root` (its infra/stack and shared code) with the checked sender domain. */
export function synthesizeDeployed(root: string): DeployedStack {
  /* eslint-disable @typescript-eslint/no-require-imports -- the checkout to check is chosen at run time */
  const { App } = require(join(root, 'node_modules/aws-cdk-lib')) as typeof import('aws-cdk-lib');
  const { BUNDLING_STACKS } = require(join(root, 'node_modules/aws-cdk-lib/cx-api')) as typeof import('aws-cdk-lib/cx-api');
  const { cdkJsonContext } = require(join(root, 'infra/stack/cdk-json-context')) as { cdkJsonContext(): Record<string, unknown> };
  const { createEmailCampaignStack } = require(join(root, 'infra/stack/email-campaign-stack')) as StackModule;
  /* eslint-enable @typescript-eslint/no-require-imports */
  const app = new App({ builtinCloudFormationValidation: false, context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [], senderDomain: checkedSenderDomain } });
  const stack = createEmailCampaignStack(app);
  const functionIds = new Map<string, string>();
  for (const [name, fn] of stack.functions.byName) functionIds.set(name, stack.getLogicalId(fn.node.defaultChild as CfnElement));
  const template = app.synth().getStackArtifact(stack.artifactId).template as Template;
  return new DeployedStack(template, functionIds);
}
