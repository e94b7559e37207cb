// X-Ray through Powertools Tracer: one tracer per container, every AWS SDK client captured (so a
// trace shows each DynamoDB, SES, SQS and Scheduler call as a subsegment), and each invocation's work
// in a `## handler` subsegment annotated with the cold start and the service. Outside Lambda (tests,
// `npm start`) the tracer disables itself and every call here is a pass-through.
import { Tracer } from '@aws-lambda-powertools/tracer';

// The service name comes from POWERTOOLS_SERVICE_NAME, which the stack sets on every function.
export const tracer = new Tracer();

/** The client with X-Ray capture middleware added (unchanged when tracing is off). */
export function traceClient<Client>(client: Client): Client {
  return tracer.captureAWSv3Client(client);
}

/** Run one invocation's work inside its own subsegment, recording a thrown error on it. */
export async function traceInvocation<Result>(name: string, work: () => Promise<Result>): Promise<Result> {
  if (!tracer.isTracingEnabled()) return work();
  const parent = tracer.getSegment();
  if (!parent) return work();
  const subsegment = parent.addNewSubsegment(`## ${name}`);
  tracer.setSegment(subsegment);
  tracer.annotateColdStart();
  tracer.addServiceNameAnnotation();
  try {
    return await work();
  } catch (error) {
    tracer.addErrorAsMetadata(error as Error);
    throw error;
  } finally {
    subsegment.close();
    tracer.setSegment(parent);
  }
}
