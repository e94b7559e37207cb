// cdk-nag's AwsSolutions rules pass on the stack: every finding is either fixed or acknowledged in
// infra/stack/nag-suppressions.ts with its reason, and an unacknowledged one fails synthesis.
import { App, Validations } from 'aws-cdk-lib';
import { Queue } from 'aws-cdk-lib/aws-sqs';
import { BUNDLING_STACKS } from 'aws-cdk-lib/cx-api';
import { AwsSolutionsChecks } from 'cdk-nag';
import { cdkJsonContext } from '../../infra/stack/cdk-json-context';
import { createEmailCampaignStack, type EmailCampaignStack } from '../../infra/stack/email-campaign-stack';
import { acknowledgements } from '../../infra/stack/nag-suppressions';

function checkedApp(): { app: App; stack: EmailCampaignStack } {
  const app = new App({ builtinCloudFormationValidation: false, context: { ...cdkJsonContext(), [BUNDLING_STACKS]: [] } });
  const stack = createEmailCampaignStack(app);
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app));
  return { app, stack };
}

describe('cdk-nag AwsSolutions', () => {
  test('synthesizes with no unacknowledged finding', () => {
    const { app } = checkedApp();
    expect(() => app.synth()).not.toThrow();
  });

  test('a new finding fails synthesis (the check really runs)', () => {
    const { app, stack } = checkedApp();
    // A queue without a dead-letter queue or enforced TLS: AwsSolutions-SQS3 and SQS4.
    new Queue(stack, 'UncheckedQueue');
    expect(() => app.synth()).toThrow(/AwsSolutions-SQS/);
  });

  test('each acknowledgement names one rule and says why', () => {
    const { stack } = checkedApp();
    const accepted = acknowledgements({ functions: stack.functions, platform: stack.platform, events: stack.events });
    expect(new Set(accepted.map(([, { id }]) => id.replace(/\[.*$/, '')))).toEqual(
      new Set(['AwsSolutions-SMG4', 'AwsSolutions-SQS3', 'AwsSolutions-IAM5', 'AwsSolutions-S1']),
    );
    for (const [, { id, reason }] of accepted) {
      expect(id).toMatch(/^AwsSolutions-[A-Z]+\d+(\[.+\])?$/);
      expect(reason.length).toBeGreaterThan(60);
    }
    // Wildcards are accepted only for X-Ray and SES's DeleteSuppressedDestination (no resource-level
    // permissions), the schedule group's schedules, the SES identities customers register at run time,
    // the SES tenants made per account at run time and the objects of the delivery events archive.
    const wildcards = accepted.filter(([, { id }]) => id.startsWith('AwsSolutions-IAM5')).map(([, { id }]) => id);
    for (const id of wildcards) expect(id).toMatch(/^AwsSolutions-IAM5\[Resource::(\*|arn:.*:schedule\/email-campaign-dev\/\*|arn:.*:ses:.*:(identity|tenant)\/\*|<PlatformSesEventArchive[0-9A-F]{8}\.Arn>\/ses-delivery-events\/\*)\]$/);
    // The archive's objects: only its stream's role and the feedback function's.
    const archiveGrants = accepted.filter(([, { id }]) => id.includes('ses-delivery-events/*')).map(([construct]) => construct);
    expect(archiveGrants).toEqual([stack.events.deliveryStream.role, stack.functions.byName.get('ses-events')?.role]);
    // The '*' reason of a role granted the suppression list says so; only the suppressions function's does.
    const namingSuppressionList = accepted.filter(([, { id, reason }]) => id === 'AwsSolutions-IAM5[Resource::*]' && reason.includes('ses:DeleteSuppressedDestination'));
    expect(namingSuppressionList.map(([construct]) => construct)).toEqual([stack.functions.byName.get('suppressions')?.role]);
  });
});
