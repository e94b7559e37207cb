// Lambda for every path no route claims: answers 405 (known path, wrong method) or 404 in the envelope.
import type { APIGatewayProxyEventV2, APIGatewayProxyStructuredResultV2, Context } from 'aws-lambda';
import { errorResult } from '../../shared/http/pipeline';
import { matchRoute } from '../../shared/http/request';

export async function handler(event: APIGatewayProxyEventV2, context?: Context): Promise<APIGatewayProxyStructuredResultV2> {
  const requestId = context?.awsRequestId ?? event.requestContext.requestId;
  try {
    const { route } = matchRoute(event);
    // A routed path reaching the catch-all means the gateway's routes and the table disagree.
    throw new Error(`Route ${route.method} ${route.path} reached the fallback function`);
  } catch (error) {
    return errorResult(error, undefined, requestId);
  }
}
