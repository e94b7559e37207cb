// The synthesized template with every Ref, Fn::GetAtt, Fn::Join, Fn::Sub and Fn::Select replaced by
// the concrete value it would have deployed in a fixed (fake) account and region, so policies can be
// evaluated against concrete ARNs. Physical names CloudFormation would generate are made from the
// logical id, as stable stand-ins.

export const account = '123456789012';
export const region = 'eu-west-1';
const partition = 'aws';

export interface TemplateResource {
  Type: string;
  Properties?: Record<string, unknown>;
}

export interface Template {
  Resources: Record<string, TemplateResource>;
}

const pseudo: Record<string, string> = {
  'AWS::AccountId': account,
  'AWS::Region': region,
  'AWS::Partition': partition,
  'AWS::URLSuffix': 'amazonaws.com',
  'AWS::StackName': 'EmailCampaignStack',
  'AWS::NoValue': '',
};

export class TemplateValues {
  constructor(readonly template: Template) {}

  resource(logicalId: string): TemplateResource {
    const resource = this.template.Resources[logicalId];
    if (!resource) throw new Error(`No resource ${logicalId} in the template`);
    return resource;
  }

  /** A name property of the resource, resolved, or a name made from its logical id as CloudFormation would generate one. */
  private physicalName(logicalId: string, property: string): string {
    const named = this.resource(logicalId).Properties?.[property];
    return named === undefined ? `stack-${logicalId}` : String(this.resolve(named));
  }

  /** The value of `Ref` to a resource or pseudo parameter. */
  ref(logicalId: string): string {
    if (logicalId in pseudo) return pseudo[logicalId] as string;
    const { Type } = this.resource(logicalId);
    switch (Type) {
      case 'AWS::DynamoDB::Table':
        return this.physicalName(logicalId, 'TableName');
      case 'AWS::SQS::Queue':
        return `https://sqs.${region}.amazonaws.com/${account}/${this.physicalName(logicalId, 'QueueName')}`;
      case 'AWS::SecretsManager::Secret':
        return `arn:${partition}:secretsmanager:${region}:${account}:secret:${this.physicalName(logicalId, 'Name')}-AbCdEf`;
      case 'AWS::IAM::Role':
        return this.physicalName(logicalId, 'RoleName');
      case 'AWS::Lambda::Function':
        return this.physicalName(logicalId, 'FunctionName');
      case 'AWS::Logs::LogGroup':
        return this.physicalName(logicalId, 'LogGroupName');
      case 'AWS::Events::Rule':
        return this.physicalName(logicalId, 'Name');
      case 'AWS::SES::ConfigurationSet':
        return this.physicalName(logicalId, 'Name');
      case 'AWS::SES::EmailIdentity':
        return this.physicalName(logicalId, 'EmailIdentity');
      case 'AWS::SES::Template':
        return this.physicalName(logicalId, 'TemplateName');
      case 'AWS::Scheduler::ScheduleGroup':
        return this.physicalName(logicalId, 'Name');
      case 'AWS::ApiGatewayV2::Api':
        return `api${logicalId.slice(0, 6).toLowerCase()}`;
      case 'AWS::ApiGateway::RestApi':
        return `rest${logicalId.slice(0, 6).toLowerCase()}`;
      case 'AWS::ApiGateway::Deployment':
        return `dep${logicalId.slice(0, 6).toLowerCase()}`;
      case 'AWS::ApiGateway::Stage':
        return this.physicalName(logicalId, 'StageName');
      case 'AWS::ApiGatewayV2::Integration':
        return `int-${logicalId}`;
      case 'AWS::Lambda::LayerVersion':
        return `arn:${partition}:lambda:${region}:${account}:layer:${logicalId}:1`;
      case 'AWS::S3::Bucket':
        return this.physicalName(logicalId, 'BucketName').toLowerCase();
      case 'AWS::KinesisFirehose::DeliveryStream':
        return this.physicalName(logicalId, 'DeliveryStreamName');
      default:
        throw new Error(`Ref to ${Type} (${logicalId}): teach ${__filename} its value`);
    }
  }

  /** The value of `Fn::GetAtt`. */
  getAtt(logicalId: string, attribute: string): string {
    const { Type } = this.resource(logicalId);
    const key = `${Type}.${attribute}`;
    switch (key) {
      case 'AWS::DynamoDB::Table.Arn':
        return `arn:${partition}:dynamodb:${region}:${account}:table/${this.ref(logicalId)}`;
      case 'AWS::SQS::Queue.Arn':
        return `arn:${partition}:sqs:${region}:${account}:${this.physicalName(logicalId, 'QueueName')}`;
      case 'AWS::SQS::Queue.QueueName':
        return this.physicalName(logicalId, 'QueueName');
      case 'AWS::SQS::Queue.QueueUrl':
        return this.ref(logicalId);
      case 'AWS::IAM::Role.Arn':
        return `arn:${partition}:iam::${account}:role/${this.ref(logicalId)}`;
      case 'AWS::Lambda::Function.Arn':
        return `arn:${partition}:lambda:${region}:${account}:function:${this.ref(logicalId)}`;
      case 'AWS::Logs::LogGroup.Arn':
        return `arn:${partition}:logs:${region}:${account}:log-group:${this.ref(logicalId)}:*`;
      case 'AWS::Events::Rule.Arn':
        return `arn:${partition}:events:${region}:${account}:rule/${this.ref(logicalId)}`;
      case 'AWS::ApiGatewayV2::Api.ApiEndpoint':
        return `https://${this.ref(logicalId)}.execute-api.${region}.amazonaws.com`;
      case 'AWS::S3::Bucket.Arn':
        return `arn:${partition}:s3:::${this.ref(logicalId)}`;
      case 'AWS::KinesisFirehose::DeliveryStream.Arn':
        return `arn:${partition}:firehose:${region}:${account}:deliverystream/${this.ref(logicalId)}`;
      case 'AWS::Scheduler::ScheduleGroup.Arn':
        return `arn:${partition}:scheduler:${region}:${account}:schedule-group/${this.ref(logicalId)}`;
      default:
        throw new Error(`Fn::GetAtt ${key} (${logicalId}): teach ${__filename} its value`);
    }
  }

  /** `value` with every intrinsic function replaced by its concrete value. */
  resolve(value: unknown): unknown {
    if (Array.isArray(value)) return value.map((item) => this.resolve(item));
    if (value === null || typeof value !== 'object') return value;
    const entries = Object.entries(value as Record<string, unknown>);
    const [name, argument] = entries[0] ?? [];
    if (entries.length === 1 && name !== undefined && (name === 'Ref' || name.startsWith('Fn::'))) return this.intrinsic(name, argument);
    return Object.fromEntries(entries.map(([key, item]) => [key, this.resolve(item)]));
  }

  private intrinsic(name: string, argument: unknown): unknown {
    switch (name) {
      case 'Ref':
        return this.ref(String(argument));
      case 'Fn::GetAtt': {
        const [logicalId, attribute] = Array.isArray(argument) ? argument : String(argument).split('.');
        return this.getAtt(String(logicalId), String(attribute));
      }
      case 'Fn::Join': {
        const [separator, parts] = argument as [string, unknown[]];
        return (this.resolve(parts) as unknown[]).map(String).join(separator);
      }
      case 'Fn::Select': {
        const [index, list] = argument as [number, unknown];
        return (this.resolve(list) as unknown[])[Number(index)];
      }
      case 'Fn::Split': {
        const [separator, text] = argument as [string, unknown];
        return String(this.resolve(text)).split(separator);
      }
      case 'Fn::Sub': {
        const [text, variables] = Array.isArray(argument) ? (argument as [string, Record<string, unknown>]) : [String(argument), {}];
        const resolved = this.resolve(variables) as Record<string, unknown>;
        return text.replace(/\$\{([^}]+)\}/g, (_match, variable: string) => {
          if (variable in resolved) return String(resolved[variable]);
          const [logicalId, attribute] = variable.split('.');
          return attribute ? this.getAtt(logicalId as string, attribute) : this.ref(variable);
        });
      }
      default:
        throw new Error(`${name}: teach ${__filename} to resolve it`);
    }
  }

  /** The logical ids of the resources of a type. */
  idsOf(type: string): string[] {
    return Object.entries(this.template.Resources)
      .filter(([, resource]) => resource.Type === type)
      .map(([logicalId]) => logicalId);
  }
}
