// Where the test suite watches the AWS calls the functions make, to check them against the stack's IAM
// policies (test/support/aws-calls/): the SDK clients are handed to the watcher when built, and each
// local stand-in of an AWS service (queue, scheduler, identities, tenants) reports the call it stands
// for. Nothing watches unless a test installs a watcher, and every caller guards on LAMBDA_BUNDLE,
// which Lambda bundles define as "true" (infra/stack/lambda-bundling.ts): a deployed function carries
// none of this. Declarations only at the top level, so a bundle that reaches none of it keeps none.

/** A call a local stand-in makes in place of the AWS one: the operation and its input, as the SDK would send it. */
export interface StoodInCall {
  service: 'sqs' | 'scheduler' | 'lambda' | 'sesv2' | 'secretsmanager' | 's3';
  operation: string;
  input: Record<string, unknown>;
}

export interface AwsCallWatcher {
  /** A client was built: the watcher may add its middleware. */
  clientBuilt(client: object): void;
  /** Run a stand-in's work for `call`; the table calls the stand-in makes are its own, not the function's. */
  standIn<Result>(call: StoodInCall, work: () => Result): Result;
}

let watcher: AwsCallWatcher | undefined;

/** Install (or, with undefined, remove) the watcher. */
export function watchAwsCalls(next: AwsCallWatcher | undefined): void {
  watcher = next;
}

export function awsCallWatcher(): AwsCallWatcher | undefined {
  return watcher;
}

/** A stand-in's work, reported as the AWS call it stands for when a watcher is installed. */
export function standIn<Result>(call: StoodInCall, work: () => Result): Result {
  return watcher ? watcher.standIn(call, work) : work();
}
