// The integration tests' tables in the run's DynamoDB Local: one per jest worker, so files in
// different workers never meet (the automation step runner, for one, drains every account's due
// enrolments in its table). Files in one worker run one after another on that worker's table.

export const TEST_TABLE = 'email-service-test';

/** The table of one jest worker (`JEST_WORKER_ID` counts from 1; a run in band is worker 1). */
export function workerTable(workerId: string | undefined): string {
  return `${TEST_TABLE}-w${workerId ?? '1'}`;
}
