// X-Ray through Powertools Tracer: one tracer per container, every AWS SDK client captured (so a
// trace shows each DynamoDB, SES, SQS and Scheduler call as a subsegment), and each invocation's work
// in a `## handler` subsegment annotated with the cold start and the service. Outside Lambda (tests,
// `npm start`) Powertools turns tracing off; there the tracer is not even loaded, and every call here
// is a pass-through. Loading it loads the X-Ray SDK, whose context tracking (cls-hooked) puts an async
// hook with a destroy callback on every promise: measured at 5-8% of the send path's Node CPU.
import type { Tracer } from '@aws-lambda-powertools/tracer';
import { optionalEnv } from './config';

/** Made at load, as the tracer always was (Lambda's init phase); null outside a Lambda execution environment. */
const tracer: Tracer | null = optionalEnv('AWS_EXECUTION_ENV') ? loadTracer() : null;

function loadTracer(): Tracer {
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded only in Lambda, unlike an import
  return (require('./tracing-lambda') as typeof import('./tracing-lambda')).lambdaTracer;
}

/** The client with X-Ray capture middleware added (unchanged when tracing is off). */
export function traceClient<Client>(client: Client): Client {
  return tracer ? tracer.captureAWSv3Client(client) : client;
}

/** Run one invocation's work inside its own subsegment, recording a thrown error on it. */
export async function traceInvocation<Result>(name: string, work: () => Promise<Result>): Promise<Result> {
  if (!tracer?.isTracingEnabled()) return work();
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
