// The IAM check `npm test` runs after jest: every AWS call the functions made in the integration and
// e2e tests (recorded under AWS_CALLS_DIR, test/support/aws-calls/), and every request AWS services
// make for the stack, evaluated against the synthesized template's policies by an IAM policy
// simulator (@cloud-copilot/iam-simulate, a devDependency: AGPL, never in a function bundle). Fails
// listing each denied (principal, action, resource). Usage: check-recorded-calls.ts <records dir>;
// IAM_CHECK_STACK_ROOT=<checkout> checks another checkout's infra/stack against the same records.
import { readdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { callKey, type CountedCall } from '../support/aws-calls/recorded-call';
import { checkedSenderDomain, synthesizeDeployed, type DeployedStack } from './deployed-stack';
import { evaluate, principalLabel } from './evaluate';
import { requestsOfCall, serviceRequests, UnmappedCall, type IamRequest } from './iam-requests';

/** Every recorded call of the run, merged across workers and test files. */
function readCalls(directory: string): { calls: CountedCall[]; unattributed: number } {
  const merged = new Map<string, CountedCall>();
  let unattributed = 0;
  for (const file of readdirSync(directory).filter((name) => name.endsWith('.jsonl'))) {
    for (const line of readFileSync(join(directory, file), 'utf8').split('\n').filter(Boolean)) {
      const entry = JSON.parse(line) as CountedCall | { unattributed: number };
      if ('unattributed' in entry) {
        unattributed += entry.unattributed;
        continue;
      }
      const key = callKey(entry);
      const known = merged.get(key);
      if (known) known.count += entry.count;
      else merged.set(key, { ...entry });
    }
  }
  return { calls: [...merged.values()], unattributed };
}

/** Per function, the actions its role allows that no request of the run needed. */
function unusedGrants(stack: DeployedStack, requests: IamRequest[]): string[] {
  const lines: string[] = [];
  for (const fn of stack.functions.values()) {
    const statements = stack.rolePolicies(fn.roleId).flatMap(({ policy }) => policy.Statement);
    const granted = new Set(statements.filter((statement) => statement.Effect === 'Allow').flatMap((statement) => [statement.Action].flat() as string[]));
    const used = new Set(requests.filter((request) => request.principal.kind === 'role' && request.principal.roleId === fn.roleId).map((request) => request.action));
    const unused = [...granted].filter((action) => !used.has(action)).sort();
    if (unused.length > 0) lines.push(`${fn.name}: ${unused.join(', ')}`);
  }
  return lines.sort();
}

async function main(): Promise<void> {
  const directory = process.argv[2] ?? process.env.AWS_CALLS_DIR;
  if (!directory) throw new Error('Usage: check-recorded-calls.ts <directory of recorded calls>');
  const { calls, unattributed } = readCalls(directory);
  // A run that recorded nothing checks nothing: refuse it rather than pass.
  if (calls.length === 0) throw new Error(`No AWS calls were recorded in ${directory}: run the integration and e2e tests with AWS_CALLS_DIR set`);
  const root = resolve(process.env.IAM_CHECK_STACK_ROOT ?? join(__dirname, '../..'));
  const stack = synthesizeDeployed(root);

  const problems: string[] = [];
  const requests: IamRequest[] = [];
  for (const call of calls) {
    try {
      requests.push(...requestsOfCall(stack, call));
    } catch (error) {
      if (!(error instanceof UnmappedCall)) throw error;
      problems.push(error.message);
    }
  }
  requests.push(...serviceRequests(stack, calls));

  // One evaluation per distinct (principal, action, resource, context).
  const distinct = new Map<string, IamRequest>();
  for (const request of requests) distinct.set(JSON.stringify([principalLabel(request), request.action, request.resource, request.context]), request);
  // Each denied (principal, action, resource) once, with one call that needs it.
  const denied = new Map<string, string>();
  for (const request of distinct.values()) {
    const outcome = await evaluate(stack, request);
    const denial = `${outcome}: ${principalLabel(request)} ${request.action} on ${request.resource}`;
    if (outcome !== 'Allowed' && !denied.has(denial)) denied.set(denial, `${denial} (${request.cause})`);
  }

  const callCount = calls.reduce((sum, call) => sum + call.count, 0);
  const triples = new Set(requests.filter((request) => request.principal.kind === 'role').map((request) => JSON.stringify([principalLabel(request), request.action, request.resource])));
  console.log(
    `IAM check of ${root === resolve(join(__dirname, '../..')) ? 'this checkout' : root} (sender domain ${checkedSenderDomain}): ${callCount} recorded AWS calls ` +
      `(${calls.length} distinct, ${unattributed} outside any handler and not checked), ${triples.size} distinct (principal, action, resource), ` +
      `${distinct.size} requests evaluated, ${denied.size} denied, ${problems.length} unmapped`,
  );
  for (const line of [...problems, ...denied.values()].sort()) console.log(`  ${line}`);
  // Not a failure: a grant no test exercised may still be needed by code the tests do not reach
  // (test/infra/least-privilege.test.ts holds the grants to what the bundles can send).
  const unused = unusedGrants(stack, requests);
  if (unused.length > 0) console.log(`Granted, and used by no recorded call or service request:\n${unused.map((line) => `  ${line}`).join('\n')}`);
  if (problems.length > 0 || denied.size > 0) process.exitCode = 1;
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
