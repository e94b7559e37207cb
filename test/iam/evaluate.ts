// One IAM request evaluated as AWS would: the principal's identity policies from the template, the
// resource's policy where the stack sets one, by @cloud-copilot/iam-simulate (AGPL: a devDependency,
// used by the tests only and never in a function bundle).
import { runSimulation } from '@cloud-copilot/iam-simulate';
import type { DeployedStack, PolicyDocument } from './deployed-stack';
import type { IamRequest } from './iam-requests';
import { account, region } from './template-values';

export const principalLabel = (request: IamRequest) => (request.principal.kind === 'role' ? request.principal.name : request.principal.service);

/** The resource policy IAM evaluates with the request, where the stack sets one. */
function resourcePolicyOf(stack: DeployedStack, request: IamRequest): PolicyDocument | undefined {
  if (request.action === 'sts:AssumeRole') return stack.trustPolicy(stack.roleIdOfArn(request.resource));
  if (request.resource.startsWith('arn:aws:lambda:')) return stack.functionPolicy(request.resource);
  if (request.resource.startsWith('arn:aws:sqs:')) return stack.queuePolicy(request.resource);
  if (request.resource.startsWith('arn:aws:s3:::')) return stack.bucketPolicy(request.resource);
  return undefined;
}

/** 'Allowed', 'ImplicitlyDenied', 'ExplicitlyDenied', or why it could not be evaluated. */
export async function evaluate(stack: DeployedStack, request: IamRequest): Promise<string> {
  const resourcePolicy = resourcePolicyOf(stack, request);
  const principal = request.principal.kind === 'role' ? `arn:aws:sts::${account}:assumed-role/${stack.values.ref(request.principal.roleId)}/session` : request.principal.service;
  const result = await runSimulation(
    {
      request: {
        principal,
        action: request.action,
        resource: { resource: request.resource, accountId: account },
        // Every SDK call and service request goes over TLS; the queues refuse anything else.
        contextVariables: { 'aws:SecureTransport': 'true', 'aws:RequestedRegion': region, ...request.context },
      },
      identityPolicies: request.principal.kind === 'role' ? stack.rolePolicies(request.principal.roleId).map(({ name, policy }) => ({ name, policy: { Version: '2012-10-17', ...policy } })) : [],
      serviceControlPolicies: [],
      resourceControlPolicies: [],
      ...(resourcePolicy ? { resourcePolicy: { Version: '2012-10-17', ...resourcePolicy } } : {}),
    },
    {},
  );
  if (result.resultType === 'error') return `not evaluated: ${result.errors.message} ${JSON.stringify(result.errors)}`;
  return result.overallResult;
}
