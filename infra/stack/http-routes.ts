// One API Gateway route per entry of the routing table, plus the catch-all that answers 404/405.
import { HttpMethod, HttpRoute, HttpRouteKey, PayloadFormatVersion, type HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import { HttpLambdaIntegration } from 'aws-cdk-lib/aws-apigatewayv2-integrations';
import type { IFunction } from 'aws-cdk-lib/aws-lambda';
import { apiPrefix, httpFamilies, routeKey, routes, type HttpFamily, type Route } from '../../shared/routes';

/** The family whose function answers every path the routing table does not know. */
export const fallbackFamily: HttpFamily = 'fallback';

export const catchAllRouteKey = HttpRouteKey.with(`${apiPrefix}{proxy+}`, HttpMethod.ANY);

// Take the path from `routeKey` so the deployed key is exactly the one the local gateway reports.
function httpRouteKey(route: Route): HttpRouteKey {
  const key = routeKey(route);
  return HttpRouteKey.with(key.slice(key.indexOf(' ') + 1), HttpMethod[route.method]);
}

export function addRoutes(api: HttpApi, functionOf: (family: HttpFamily) => IFunction): void {
  // One integration per family, shared by its routes. Payload 2.0 is what the handlers parse.
  const integrations = new Map(
    httpFamilies.map((family) => [
      family,
      new HttpLambdaIntegration(`${family}-integration`, functionOf(family), {
        payloadFormatVersion: PayloadFormatVersion.VERSION_2_0,
      }),
    ]),
  );
  const integrationOf = (family: HttpFamily): HttpLambdaIntegration => {
    const integration = integrations.get(family);
    if (!integration) throw new Error(`No integration for HTTP family ${family}`);
    return integration;
  };
  for (const route of routes) {
    new HttpRoute(api, routeKey(route), { httpApi: api, routeKey: httpRouteKey(route), integration: integrationOf(route.family) });
  }
  new HttpRoute(api, catchAllRouteKey.key, {
    httpApi: api,
    routeKey: catchAllRouteKey,
    integration: integrationOf(fallbackFamily),
  });
}
