// Every integration test file runs background jobs through the real `jobs` consumer, as the local stack does.
import { runJobsInProcess } from './jobs';

runJobsInProcess();
