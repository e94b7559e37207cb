// SES's custom verification email template of sender addresses: our branded mail, sent by SES itself
// when a sender is saved deployed (shared/identities/ses-identities.ts), from the operator's system
// address, leading to our own public pages after the click. CloudFormation has no resource for it, so
// a custom resource calls SESv2 on create, update and delete.
import { RemovalPolicy, Stack } from 'aws-cdk-lib';
import { PolicyStatement } from 'aws-cdk-lib/aws-iam';
import { LogGroup, type RetentionDays } from 'aws-cdk-lib/aws-logs';
import { AwsCustomResource, AwsCustomResourcePolicy, PhysicalResourceId, type AwsSdkCall } from 'aws-cdk-lib/custom-resources';
import { Construct, type IConstruct } from 'constructs';
import { senderVerificationMailContent } from '../../shared/identities/verification-mail';

/** The template's name: one per stage, so several stages can live in one account and region. */
export function senderVerificationTemplateName(stage: string): string {
  return `email-campaign-${stage}-sender-verification`;
}

/** The template's ARN, as IAM names it. */
export function verificationTemplateArn(stack: Stack, templateName: string): string {
  return stack.formatArn({ service: 'ses', resource: 'custom-verification-email-template', resourceName: templateName });
}

/** The SES actions the custom resource calls, and nothing else. */
export const verificationTemplateActions = [
  'ses:CreateCustomVerificationEmailTemplate',
  'ses:UpdateCustomVerificationEmailTemplate',
  'ses:DeleteCustomVerificationEmailTemplate',
];

export interface VerificationTemplateProps {
  stage: string;
  /** The From address of the mail: the operator's system-mail sender, on the stack's verified domain. */
  systemFromEmail: string;
  /** The API root (ending in `/api/`): the pages after a click are below it. */
  publicBaseUrl: string;
  /** The custom resource's Lambda logs as long as the service's functions. */
  logRetention: RetentionDays;
  allowDestroy: boolean;
}

export class VerificationTemplate extends Construct {
  readonly templateName: string;
  readonly templateArn: string;
  /** The role of the custom resource's Lambda (CDK's own singleton), for the findings it brings. */
  readonly providerRole: IConstruct;

  constructor(scope: Construct, id: string, props: VerificationTemplateProps) {
    super(scope, id);
    this.templateName = senderVerificationTemplateName(props.stage);
    this.templateArn = verificationTemplateArn(Stack.of(this), this.templateName);
    const content = senderVerificationMailContent();
    const template = {
      TemplateName: this.templateName,
      FromEmailAddress: props.systemFromEmail,
      TemplateSubject: content.subject,
      TemplateContent: content.html,
      SuccessRedirectionURL: `${props.publicBaseUrl}public/senders/verified`,
      FailureRedirectionURL: `${props.publicBaseUrl}public/senders/verification-failed`,
    };
    const call = (action: string, parameters: Record<string, unknown>): AwsSdkCall => ({
      service: 'SESv2',
      action,
      parameters,
      physicalResourceId: PhysicalResourceId.of(this.templateName),
    });
    const resource = new AwsCustomResource(this, 'Resource', {
      resourceType: 'Custom::SesCustomVerificationEmailTemplate',
      onCreate: call('CreateCustomVerificationEmailTemplate', template),
      onUpdate: call('UpdateCustomVerificationEmailTemplate', template),
      onDelete: call('DeleteCustomVerificationEmailTemplate', { TemplateName: this.templateName }),
      // The SDK in the Lambda runtime has these calls; nothing is downloaded at deploy time.
      installLatestAwsSdk: false,
      policy: AwsCustomResourcePolicy.fromStatements([new PolicyStatement({ actions: verificationTemplateActions, resources: [this.templateArn] })]),
      logGroup: new LogGroup(this, 'Logs', {
        retention: props.logRetention,
        removalPolicy: props.allowDestroy ? RemovalPolicy.DESTROY : RemovalPolicy.RETAIN,
      }),
    });
    this.providerRole = resource.grantPrincipal as unknown as IConstruct;
  }
}
