// Every integration test file runs background jobs through the real `jobs` consumer, and the SES
// sink's events through the real `ses-events` consumer, as the local stack does.
import { functionConsumer } from '../../infra/local/queue-consumers';
import { registerLocalConsumer } from '../../shared/queue/local-queue';
import { runJobsInProcess } from './jobs';

runJobsInProcess();
registerLocalConsumer('ses-events', functionConsumer('ses-events'));
