// The one stack: the table, the HTTP API built from the routing table, and one function per family.
import { CfnOutput, Stack, Tags, type App, type StackProps } from 'aws-cdk-lib';
import type { HttpApi } from 'aws-cdk-lib/aws-apigatewayv2';
import type { Table } from 'aws-cdk-lib/aws-dynamodb';
import type { Construct } from 'constructs';
import { createDataTable } from './data-table';
import { createHttpApi } from './http-api';
import { HttpFunctions, type HandlerSource } from './http-functions';
import { addRoutes } from './http-routes';
import { readSettings, type StackSettings } from './settings';

export interface EmailCampaignStackProps extends StackProps {
  settings: StackSettings;
  handlerSource?: HandlerSource;
}

export class EmailCampaignStack extends Stack {
  readonly table: Table;
  readonly httpApi: HttpApi;
  readonly httpFunctions: HttpFunctions;

  constructor(scope: Construct, id: string, props: EmailCampaignStackProps) {
    super(scope, id, props);
    const { settings } = props;
    Tags.of(this).add('service', 'email-campaign');
    Tags.of(this).add('stage', settings.stage);

    this.table = createDataTable(this, { allowDestroy: settings.allowDestroy });
    // The API exists before the functions so they can know its URL; only the routes depend on the functions.
    const { api, baseUrl } = createHttpApi(this, settings.stage, settings.apiThrottle);
    this.httpApi = api;
    this.httpFunctions = new HttpFunctions(this, 'HttpFunctions', {
      table: this.table,
      publicBaseUrl: baseUrl,
      logRetention: settings.logRetention,
      allowDestroy: settings.allowDestroy,
      handlerSource: props.handlerSource,
    });
    addRoutes(api, (family) => this.httpFunctions.functionOf(family));

    new CfnOutput(this, 'ApiBaseUrl', { value: baseUrl, description: 'The API root; every route is below it.' });
    new CfnOutput(this, 'TableName', { value: this.table.tableName });
  }
}

/** The stack as `cdk synth` builds it: settings from the app's context, named after the stage. */
export function createEmailCampaignStack(app: App, handlerSource?: HandlerSource): EmailCampaignStack {
  const settings = readSettings(app.node);
  // No `env`: the template is environment-agnostic and deploys to whatever account and region the CLI
  // is given, and nothing at synth time looks anything up in an account.
  return new EmailCampaignStack(app, `email-campaign-${settings.stage}`, {
    settings,
    handlerSource,
    description: `Email campaign service (${settings.stage})`,
  });
}
