// Sender identities in the stack: SES's custom verification email template made by a custom resource
// (create, update, delete through SESv2, our system address, redirects to our own public pages) with
// exactly its three template actions; the template named to the functions that register addresses and
// granted to them; and the periodic check of pending identities on an EventBridge rule every 15 minutes.
import { Match, type Template } from 'aws-cdk-lib/assertions';
import { identityRefreshFunction } from '../../infra/stack/service-functions';
import { senderVerificationTemplateName } from '../../infra/stack/verification-template';
import { senderVerificationMailContent } from '../../shared/identities/verification-mail';
import { actionsOf, functionProperties, logicalIdOf, statementsFor, synthesize, type PolicyStatement, type Synthesized } from './support';

/** The JSON a custom resource's `Create`/`Update`/`Delete` property resolves to, with the API URL's tokens as text. */
function sdkCall(resource: Record<string, unknown>, phase: 'Create' | 'Update' | 'Delete'): Record<string, unknown> {
  const join = resource[phase] as { 'Fn::Join': [string, unknown[]] } | string;
  const text = typeof join === 'string' ? join : join['Fn::Join'][1].map((part) => (typeof part === 'string' ? part : '<api>')).join('');
  return JSON.parse(text) as Record<string, unknown>;
}

describe('sender identities in the stack', () => {
  let synthesized: Synthesized;
  let template: Template;
  const name = senderVerificationTemplateName('dev');

  beforeAll(() => {
    synthesized = synthesize({ stage: 'dev', systemFromEmail: 'hello@mail.example.org', senderDomain: 'mail.example.org' });
    template = synthesized.template;
  });

  const customResource = (): Record<string, unknown> => {
    const found = Object.values(template.findResources('Custom::SesCustomVerificationEmailTemplate'));
    expect(found).toHaveLength(1);
    return (found[0] as { Properties: Record<string, unknown> }).Properties;
  };

  test('creates, updates and deletes the custom verification template through SESv2', () => {
    const resource = customResource();
    const content = senderVerificationMailContent();
    const parameters = {
      TemplateName: name,
      FromEmailAddress: 'hello@mail.example.org',
      TemplateSubject: content.subject,
      TemplateContent: content.html,
      SuccessRedirectionURL: expect.stringMatching(/^https:\/\/<api>\.execute-api\.<api>\.<api>\/links\/api\/public\/senders\/verified$/),
      FailureRedirectionURL: expect.stringMatching(/^https:\/\/<api>\.execute-api\.<api>\.<api>\/links\/api\/public\/senders\/verification-failed$/),
    };
    expect(sdkCall(resource, 'Create')).toMatchObject({ service: 'SESv2', action: 'CreateCustomVerificationEmailTemplate', parameters, physicalResourceId: { id: name } });
    expect(sdkCall(resource, 'Update')).toMatchObject({ service: 'SESv2', action: 'UpdateCustomVerificationEmailTemplate', parameters, physicalResourceId: { id: name } });
    expect(sdkCall(resource, 'Delete')).toMatchObject({ service: 'SESv2', action: 'DeleteCustomVerificationEmailTemplate', parameters: { TemplateName: name } });
    expect(resource.InstallLatestAwsSdk).toBe(false);
  });

  test("grants the custom resource its three template actions on the template, and nothing else of SES", () => {
    const policies = Object.values(template.findResources('AWS::IAM::Policy', { Properties: { PolicyName: Match.stringLikeRegexp('SenderVerificationTemplate') } }));
    expect(policies).toHaveLength(1);
    const statements = (policies[0] as { Properties: { PolicyDocument: { Statement: PolicyStatement[] } } }).Properties.PolicyDocument.Statement;
    expect(statements.flatMap(actionsOf).sort()).toEqual([
      'ses:CreateCustomVerificationEmailTemplate',
      'ses:DeleteCustomVerificationEmailTemplate',
      'ses:UpdateCustomVerificationEmailTemplate',
    ]);
    expect(JSON.stringify(statements.map((statement) => statement.Resource))).toContain(`:custom-verification-email-template/${name}`);
  });

  test.each(['senders', 'sender-domains', identityRefreshFunction])('names the template to %s and lets it mail it', (fn) => {
    expect(functionProperties(synthesized, fn).Environment.Variables.SENDER_VERIFICATION_TEMPLATE).toBe(name);
    const mailing = statementsFor(synthesized, fn, 'ses:').filter((statement) => JSON.stringify(statement.Resource).includes('custom-verification-email-template'));
    expect(mailing.map(actionsOf)).toEqual([['ses:SendCustomVerificationEmail']]);
  });

  test.each(['senders', 'sender-domains', identityRefreshFunction])("tells %s the service's own sender domain, which no account may take", (fn) => {
    expect(functionProperties(synthesized, fn).Environment.Variables.SENDER_DOMAIN).toBe('mail.example.org');
  });

  test('gives no other function the template', () => {
    for (const fn of ['contacts', 'public-pages', 'send-deliver']) {
      expect(functionProperties(synthesized, fn).Environment.Variables.SENDER_VERIFICATION_TEMPLATE).toBeUndefined();
    }
  });

  test('runs the periodic check every 15 minutes on an EventBridge rule', () => {
    template.hasResourceProperties('AWS::Events::Rule', {
      ScheduleExpression: 'rate(15 minutes)',
      State: 'ENABLED',
      Targets: [Match.objectLike({ Arn: { 'Fn::GetAtt': [logicalIdOf(synthesized, identityRefreshFunction), 'Arn'] } })],
    });
  });
});
