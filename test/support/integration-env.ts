// Integration tests run only against DynamoDB Local: refuse anything else before a test touches a table.
import { workerTable } from './test-table';

const endpoint = process.env.DYNAMODB_ENDPOINT ?? '';
if (!/^http:\/\/(127\.0\.0\.1|localhost):\d+$/.test(endpoint)) {
  throw new Error(`Integration tests need DynamoDB Local; DYNAMODB_ENDPOINT is '${endpoint}'`);
}
process.env.APP_RUNTIME = 'local';
// This worker's own table (made and seeded by global-setup.ts).
process.env.TABLE_NAME = workerTable(process.env.JEST_WORKER_ID);
process.env.AWS_REGION = 'us-east-1';
process.env.LOG_LEVEL = process.env.LOG_LEVEL ?? 'silent';
process.env.PUBLIC_BASE_URL = 'http://localhost:3000/api/';
// SES's control-plane pace (1 call a second deployed) would only slow the faked deployed flows;
// the tests of the pacer set their own rate and clock.
process.env.SES_CONTROL_RATE = process.env.SES_CONTROL_RATE ?? '1000';
