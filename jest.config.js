// Jest projects: unit (no I/O), integration (handlers on DynamoDB Local), infra (CDK template), e2e (local server over HTTP).
const transform = { '^.+\\.tsx?$': ['@swc/jest'] };
const common = { transform, testEnvironment: 'node', moduleFileExtensions: ['ts', 'js', 'json'] };
// The projects that run the functions' handlers record the AWS calls they make when AWS_CALLS_DIR is
// set (npm test sets it; test/support/aws-calls/), for the IAM check that runs after them.
const recording = {
  transform: { '/functions/[^/]+/handler\\.ts$': '<rootDir>/test/support/aws-calls/handler-transform.js', ...transform },
  testEnvironment: '<rootDir>/test/support/aws-calls/recording-environment.js',
};

module.exports = {
  projects: [
    { ...common, displayName: 'unit', testMatch: ['<rootDir>/test/unit/**/*.test.ts'] },
    {
      ...common,
      ...recording,
      displayName: 'integration',
      testMatch: ['<rootDir>/test/integration/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
      setupFiles: ['<rootDir>/test/support/suite-limits.ts', '<rootDir>/test/support/integration-env.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/integration-jobs.ts', '<rootDir>/test/support/aws-calls/record-setup.ts'],
    },
    { ...common, displayName: 'infra', testMatch: ['<rootDir>/test/infra/**/*.test.ts'] },
    {
      ...common,
      ...recording,
      displayName: 'e2e',
      testMatch: ['<rootDir>/test/e2e/**/*.test.ts'],
      setupFiles: ['<rootDir>/test/support/suite-limits.ts'],
      setupFilesAfterEnv: ['<rootDir>/test/support/aws-calls/record-setup.ts'],
    },
  ],
  // Two workers on the 2-core machines the suite runs on: most files wait on DynamoDB Local, a child
  // process or a browser, so two run side by side in about the time of one. Each worker has its own
  // table (test/support/test-table.ts), so files in different workers never see each other's data.
  maxWorkers: 2,
  testTimeout: 30000,
  testSequencer: '<rootDir>/test/support/test-sequencer.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
};
