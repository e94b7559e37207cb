// Jest setup of the integration and e2e projects: records the AWS calls the functions make when
// AWS_CALLS_DIR is set (npm test sets it), and does nothing otherwise.
import { recordAwsCallsOfThisFile } from './recorder';

recordAwsCallsOfThisFile(expect.getState().testPath ?? 'unknown');
