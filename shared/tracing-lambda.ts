// The Powertools tracer, which loads the X-Ray SDK. Only tracing.ts loads this module, and only in a
// Lambda execution environment. It is a module of its own so that this file can import the package:
// a bundle then takes the package's ES build and shares Powertools' common code with the logger and
// metrics, where a require() of the package would bring its CommonJS build (and a second copy of it).
import { Tracer } from '@aws-lambda-powertools/tracer';

// The service name comes from POWERTOOLS_SERVICE_NAME, which the stack sets on every function.
export const lambdaTracer = new Tracer();
