// The HTTP API and its one auto-deployed stage; routes are added from the routing table afterwards.
import { HttpApi, type ThrottleSettings } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Construct } from 'constructs';
import { apiPrefix } from '../../shared/routes';

export interface PublicHttpApi {
  api: HttpApi;
  /** The API root as clients see it, ending in `/api/`. */
  baseUrl: string;
}

export function createHttpApi(scope: Construct, stage: string, throttle: ThrottleSettings): PublicHttpApi {
  const api = new HttpApi(scope, 'HttpApi', {
    apiName: `email-campaign-${stage}`,
    // The built-in default stage takes no throttling settings, so we add our own `$default` below.
    createDefaultStage: false,
  });
  api.addStage('DefaultStage', { stageName: '$default', autoDeploy: true, throttle });
  // `$default` is served at the endpoint's root, so the stage adds nothing to the path.
  return { api, baseUrl: `${api.apiEndpoint}${apiPrefix}` };
}
